; _array_object.record natively (RECORD): the node of an op the front end's Python code
; records (a view, a reduction, a matrix product, a creation...), its signature and its
; Array, in one call instead of 0.8-1.1 us of Python.  Appended to backend/recorder.ll.

; ---- the signature (%id, %leaves, the epoch of %e) of structure part %part (stolen),
; as ir.structure_id and ir.signature_of make it: new reference (None where the part
; has no id); NULL on error
define internal ptr @lz_part_sig(ptr %ctx, ptr %part, ptr %leaves, ptr %e) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %id = call ptr @lz_sid(ptr %ctx, ptr %part)  ; (backend/steps.ll)
  call void @Py_DecRef(ptr %part)
  %noid = icmp eq ptr %id, null
  br i1 %noid, label %fail, label %haveid
haveid:
  %idnone = icmp eq ptr %id, %none
  br i1 %idnone, label %nosig, label %epoch
nosig:
  ret ptr %id
epoch:
  %ep = call ptr @lz_epoch(ptr %ctx, ptr %e)
  %noep = icmp eq ptr %ep, null
  br i1 %noep, label %failid, label %pack
pack:
  %sig = call ptr (i64, ...) @PyTuple_Pack(i64 3, ptr %id, ptr %leaves, ptr %ep)
  call void @Py_DecRef(ptr %id)
  ret ptr %sig
failid:
  call void @Py_DecRef(ptr %id)
  br label %fail
fail:
  ret ptr null
}

; ---- the signature of a node recorded from %srcs (Nodes): new reference,
; NULL on error.  The sources' signatures are held while it is made: a call below may
; run Python code, and another thread may evaluate a source meanwhile (its signature
; replaced)
define internal ptr @lz_record_sig(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %srcs, ptr %arg) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %osig = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  %ns = call i64 @size(ptr %srcs)
  switch i64 %ns, label %many [i64 0, label %zero
                               i64 1, label %one
                               i64 2, label %two]
many:
  %gn = call ptr @lz_sig_ofn(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %arg, ptr %srcs)
  ret ptr %gn
zero:
  %p0 = call ptr (i64, ...) @PyTuple_Pack(i64 4, ptr %op, ptr %dtype, ptr %shape, ptr %arg)
  %nop0 = icmp eq ptr %p0, null
  br i1 %nop0, label %fail, label %sig0
sig0:
  %empty = call ptr @w(ptr %ctx, i64 $C_EMPTY$)
  %never = call ptr @w(ptr %ctx, i64 $C_NEVER$)
  %g0 = call ptr @lz_part_sig(ptr %ctx, ptr %p0, ptr %empty, ptr %never)
  ret ptr %g0
one:
  %n1 = call ptr @item(ptr %srcs, i64 0)
  %s = call ptr @get(ptr %n1, i64 %osig)
  call void @Py_IncRef(ptr %s)
  %ok = call i1 @triple(ptr %ctx, ptr %s)
  br i1 %ok, label %part1, label %nosig1
part1:
  %k = call ptr @item(ptr %s, i64 0)
  %p1 = call ptr (i64, ...) @PyTuple_Pack(i64 5, ptr %op, ptr %dtype, ptr %shape, ptr %arg, ptr %k)
  %nop1 = icmp eq ptr %p1, null
  br i1 %nop1, label %fail1, label %sig1
sig1:
  %lv = call ptr @item(ptr %s, i64 1)
  %e = call ptr @item(ptr %s, i64 2)
  %g1 = call ptr @lz_part_sig(ptr %ctx, ptr %p1, ptr %lv, ptr %e)
  call void @Py_DecRef(ptr %s)
  ret ptr %g1
nosig1:
  call void @Py_DecRef(ptr %s)
  br label %nosig
fail1:
  call void @Py_DecRef(ptr %s)
  br label %fail
two:
  %na = call ptr @item(ptr %srcs, i64 0)
  %nb = call ptr @item(ptr %srcs, i64 1)
  %sa = call ptr @get(ptr %na, i64 %osig)
  %sb = call ptr @get(ptr %nb, i64 %osig)
  call void @Py_IncRef(ptr %sa)
  call void @Py_IncRef(ptr %sb)
  %g2 = call ptr @lz_sig_of2(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %arg, ptr %sa, ptr %sb)
  call void @Py_DecRef(ptr %sa)
  call void @Py_DecRef(ptr %sb)
  ret ptr %g2
nosig:
  call void @Py_IncRef(ptr %none)
  ret ptr %none
fail:
  ret ptr null
}

; ---- ir.signature_of for two sources' signatures %sa, %sb (held by the caller)
define internal ptr @lz_sig_of2(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %arg, ptr %sa, ptr %sb) {
entry:
  %out = alloca [2 x ptr]
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %oka = call i1 @triple(ptr %ctx, ptr %sa)
  %okb = call i1 @triple(ptr %ctx, ptr %sb)
  %ok = and i1 %oka, %okb
  br i1 %ok, label %go, label %nosig
go:
  %ka = call ptr @item(ptr %sa, i64 0)
  %la = call ptr @item(ptr %sa, i64 1)
  %ea = call ptr @item(ptr %sa, i64 2)
  %kb = call ptr @item(ptr %sb, i64 0)
  %lb = call ptr @item(ptr %sb, i64 1)
  %eb = call ptr @item(ptr %sb, i64 2)
  %st = call i32 @lz_join(ptr %ctx, ptr %la, ptr %lb, ptr %kb, ptr %out)
  switch i32 %st, label %fail [i32 0, label %nosig
                               i32 1, label %keyed]
keyed:
  %leaves = load ptr, ptr %out
  %kp = getelementptr ptr, ptr %out, i64 1
  %k2 = load ptr, ptr %kp
  %part = call ptr (i64, ...) @PyTuple_Pack(i64 6, ptr %op, ptr %dtype, ptr %shape, ptr %arg, ptr %ka, ptr %k2)
  call void @Py_DecRef(ptr %k2)
  %nopart = icmp eq ptr %part, null
  br i1 %nopart, label %failleaves, label %epoch
epoch:
  ; the older epoch (ir.signature_of takes the first unless the second is less)
  %lt = call i32 @PyObject_RichCompareBool(ptr %eb, ptr %ea, i32 0)
  %lterr = icmp slt i32 %lt, 0
  br i1 %lterr, label %failpart, label %pick
pick:
  %less = icmp eq i32 %lt, 1
  %e = select i1 %less, ptr %eb, ptr %ea
  %sig = call ptr @lz_part_sig(ptr %ctx, ptr %part, ptr %leaves, ptr %e)
  call void @Py_DecRef(ptr %leaves)
  ret ptr %sig
failpart:
  call void @Py_DecRef(ptr %part)
  br label %failleaves
failleaves:
  call void @Py_DecRef(ptr %leaves)
  br label %fail
fail:
  ret ptr null
nosig:
  call void @Py_IncRef(ptr %none)
  ret ptr %none
}

; ---- ir.signature_of's loop, for three or more sources %srcs (Nodes): each source's
; structure id in the part, with its leaves' positions where its leaves are not the
; merged ones so far; the oldest epoch.  The sources' signatures are held meanwhile
define internal ptr @lz_sig_ofn(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %arg, ptr %srcs) {
entry:
  %out = alloca [2 x ptr]
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %osig = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  %ns = call i64 @size(ptr %srcs)
  %sigs = alloca ptr, i64 %ns
  br label %hold
hold:
  %h = phi i64 [0, %entry], [%h1, %hold1]
  %hn = icmp slt i64 %h, %ns
  br i1 %hn, label %hold1, label %start
hold1:
  %hs = call ptr @item(ptr %srcs, i64 %h)
  %hg = call ptr @get(ptr %hs, i64 %osig)
  call void @Py_IncRef(ptr %hg)
  %hp = getelementptr ptr, ptr %sigs, i64 %h
  store ptr %hg, ptr %hp
  %h1 = add i64 %h, 1
  br label %hold
start:
  %size = add i64 %ns, 4
  %part = call ptr @PyTuple_New(i64 %size)
  %nopart = icmp eq ptr %part, null
  br i1 %nopart, label %failheld, label %head
head:
  call void @Py_IncRef(ptr %op)
  call void @Py_IncRef(ptr %dtype)
  call void @Py_IncRef(ptr %shape)
  call void @Py_IncRef(ptr %arg)
  call void @set(ptr %part, i64 $TUPLE_ITEMS$, ptr %op)
  %t1 = add i64 $TUPLE_ITEMS$, 8
  call void @set(ptr %part, i64 %t1, ptr %dtype)
  %t2 = add i64 $TUPLE_ITEMS$, 16
  call void @set(ptr %part, i64 %t2, ptr %shape)
  %t3 = add i64 $TUPLE_ITEMS$, 24
  call void @set(ptr %part, i64 %t3, ptr %arg)
  %never = call ptr @w(ptr %ctx, i64 $C_NEVER$)
  br label %loop
loop:
  %i = phi i64 [0, %head], [%i1, %put]
  %leaves = phi ptr [null, %head], [%lv2, %put]
  %epoch = phi ptr [%never, %head], [%ep2, %put]
  %more = icmp slt i64 %i, %ns
  br i1 %more, label %read, label %done
read:
  %sp = getelementptr ptr, ptr %sigs, i64 %i
  %s = load ptr, ptr %sp
  %ok = call i1 @triple(ptr %ctx, ptr %s)
  br i1 %ok, label %older, label %nosig
older:
  %k = call ptr @item(ptr %s, i64 0)
  %ls = call ptr @item(ptr %s, i64 1)
  %e = call ptr @item(ptr %s, i64 2)
  %lt = call i32 @PyObject_RichCompareBool(ptr %e, ptr %epoch, i32 0)
  %lterr = icmp slt i32 %lt, 0
  br i1 %lterr, label %fail, label %pick
pick:
  %less = icmp eq i32 %lt, 1
  %ep2 = select i1 %less, ptr %e, ptr %epoch
  %first = icmp eq ptr %leaves, null
  br i1 %first, label %asis, label %join
asis:
  call void @Py_IncRef(ptr %ls)
  call void @Py_IncRef(ptr %k)
  br label %put
join:
  %st = call i32 @lz_join(ptr %ctx, ptr %leaves, ptr %ls, ptr %k, ptr %out)
  switch i32 %st, label %fail [i32 0, label %nosig
                               i32 1, label %joined]
joined:
  call void @Py_DecRef(ptr %leaves)
  %ml = load ptr, ptr %out
  %wp = getelementptr ptr, ptr %out, i64 1
  %kw = load ptr, ptr %wp
  br label %put
put:
  %lv2 = phi ptr [%ls, %asis], [%ml, %joined]
  %item = phi ptr [%k, %asis], [%kw, %joined]
  %io = add i64 %i, 4
  %io8 = mul i64 %io, 8
  %io1 = add i64 %io8, $TUPLE_ITEMS$
  call void @set(ptr %part, i64 %io1, ptr %item)
  %i1 = add i64 %i, 1
  br label %loop
done:
  ; (the epoch is held by a held signature, or is NEVER)
  %sig = call ptr @lz_part_sig(ptr %ctx, ptr %part, ptr %leaves, ptr %epoch)
  call void @Py_DecRef(ptr %leaves)
  call void @lz_release(ptr %sigs, i64 %ns)
  ret ptr %sig
nosig:
  call void @Py_DecRef(ptr %leaves)
  call void @Py_DecRef(ptr %part)
  call void @lz_release(ptr %sigs, i64 %ns)
  call void @Py_IncRef(ptr %none)
  ret ptr %none
fail:
  call void @Py_DecRef(ptr %leaves)
  call void @Py_DecRef(ptr %part)
  br label %failheld
failheld:
  call void @lz_release(ptr %sigs, i64 %ns)
  ret ptr null
}

; ---- Py_DecRef of %n pointers at %p
define internal void @lz_release(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %body]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %q = getelementptr ptr, ptr %p, i64 %i
  %o = load ptr, ptr %q
  call void @Py_DecRef(ptr %o)
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret void
}

; ---- 1 when %shape's Python int sizes are all above 0 and their product stays within
; int64 (record's size check then has nothing to say), else 0
define internal i1 @lz_sizes_fit(ptr %ctx, ptr %shape) {
entry:
  %ovf = alloca i32
  %it = call ptr @w(ptr %ctx, i64 $C_INT_T$)
  %rank = call i64 @size(ptr %shape)
  br label %loop
loop:
  %j = phi i64 [0, %entry], [%j1, %next]
  %n = phi i64 [1, %entry], [%n1, %next]
  %more = icmp slt i64 %j, %rank
  br i1 %more, label %look, label %yes
look:
  %d = call ptr @item(ptr %shape, i64 %j)
  %dt = call ptr @type(ptr %d)
  %isint = icmp eq ptr %dt, %it
  br i1 %isint, label %int, label %skip
int:
  store i32 0, ptr %ovf
  %v = call i64 @PyLong_AsLongLongAndOverflow(ptr %d, ptr %ovf)
  %o = load i32, ptr %ovf
  %big = icmp ne i32 %o, 0
  %low = icmp slt i64 %v, 1
  %out = or i1 %big, %low
  br i1 %out, label %no, label %mul
mul:
  %m = call {i64, i1} @llvm.smul.with.overflow.i64(i64 %n, i64 %v)
  %mv = extractvalue {i64, i1} %m, 0
  %mo = extractvalue {i64, i1} %m, 1
  br i1 %mo, label %no, label %next
skip:
  br label %next
next:
  %n1 = phi i64 [%mv, %mul], [%n, %skip]
  %j1 = add i64 %j, 1
  br label %loop
yes:
  ret i1 1
no:
  ret i1 0
}

; ---- record(op, dtype, shape, srcs=(), arg=None) or signature(...) (SIGNATURE: only the
; node's signature, as ir.signature makes it): positional arguments only, a tuple
; shape whose sizes fit, a tuple of Nodes; anything else (and a placeholder)
; goes to the Python function, which checks and raises as before
define internal ptr @lz_record_entry(ptr %ctx, ptr %args, i64 %nargs) {
entry:
  %lo = icmp slt i64 %nargs, 3
  %hi = icmp sgt i64 %nargs, 5
  %bad = or i1 %lo, %hi
  br i1 %bad, label %python, label %read
read:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %empty = call ptr @w(ptr %ctx, i64 $C_EMPTY$)
  %op = load ptr, ptr %args
  %a1 = getelementptr ptr, ptr %args, i64 1
  %dtype = load ptr, ptr %a1
  %a2 = getelementptr ptr, ptr %args, i64 2
  %shape = load ptr, ptr %a2
  %has3 = icmp sgt i64 %nargs, 3
  br i1 %has3, label %read3, label %srcs
read3:
  %a3 = getelementptr ptr, ptr %args, i64 3
  %s3 = load ptr, ptr %a3
  br label %srcs
srcs:
  %sr = phi ptr [%s3, %read3], [%empty, %read]
  %has4 = icmp sgt i64 %nargs, 4
  br i1 %has4, label %read4, label %check
read4:
  %a4 = getelementptr ptr, ptr %args, i64 4
  %g4 = load ptr, ptr %a4
  br label %check
check:
  %arg = phi ptr [%g4, %read4], [%none, %srcs]
  %ph = call ptr @w(ptr %ctx, i64 $C_PLACEHOLDER_OP$)
  %isph = icmp eq ptr %op, %ph
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %sht = call ptr @type(ptr %shape)
  %shok = icmp eq ptr %sht, %tt
  %srt = call ptr @type(ptr %sr)
  %srok = icmp eq ptr %srt, %tt
  %tuples = and i1 %shok, %srok
  %plain = xor i1 %isph, 1
  %ok1 = and i1 %tuples, %plain
  br i1 %ok1, label %count, label %python
count:
  %ns = call i64 @size(ptr %sr)
  br label %nodes
nodes:
  %nt = call ptr @w(ptr %ctx, i64 $C_NODE_T$)
  br label %nloop
nloop:
  %i = phi i64 [0, %nodes], [%i1, %nnext]
  %nmore = icmp slt i64 %i, %ns
  br i1 %nmore, label %nlook, label %sizes
nlook:
  %src = call ptr @item(ptr %sr, i64 %i)
  %st = call ptr @type(ptr %src)
  %isnode = icmp eq ptr %st, %nt
  br i1 %isnode, label %nnext, label %python
nnext:
  %i1 = add i64 %i, 1
  br label %nloop
sizes:
  %kind = call i64 @wi(ptr %ctx, i64 $C_KIND$)
  %only = icmp eq i64 %kind, $SIGNATURE$
  br i1 %only, label %signature, label %make
signature:
  %fit = call i1 @lz_sizes_fit(ptr %ctx, ptr %shape)
  br i1 %fit, label %sig, label %python
sig:
  %sg = call ptr @lz_record_sig(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %sr, ptr %arg)
  ret ptr %sg
make:
  ; (lz_make steals them)
  call void @Py_IncRef(ptr %shape)
  call void @Py_IncRef(ptr %sr)
  %r = call ptr @lz_make(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %sr, ptr %arg)
  %nor = icmp eq ptr %r, null
  br i1 %nor, label %why, label %made
made:
  ret ptr %r
why:
  ; no error: its sizes do not fit (the Python function checks them)
  %err = call i1 @failed()
  br i1 %err, label %fail, label %python
fail:
  ret ptr null
python:
  %fn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %o = call ptr @PyObject_Vectorcall(ptr %fn, ptr %args, i64 %nargs, ptr null)
  ret ptr %o
}

; ---- a shape's size %i as an int64 when it is a Python int within int64, else -1
define internal i64 @lz_size_at(ptr %ctx, ptr %shape, i64 %i) {
entry:
  %ovf = alloca i32
  %d = call ptr @item(ptr %shape, i64 %i)
  %it = call ptr @w(ptr %ctx, i64 $C_INT_T$)
  %dt = call ptr @type(ptr %d)
  %isint = icmp eq ptr %dt, %it
  br i1 %isint, label %int, label %no
int:
  store i32 0, ptr %ovf
  %v = call i64 @PyLong_AsLongLongAndOverflow(ptr %d, ptr %ovf)
  %o = load i32, ptr %ovf
  %big = icmp ne i32 %o, 0
  %neg = icmp slt i64 %v, 0
  %out = or i1 %big, %neg
  br i1 %out, label %no, label %yes
yes:
  ret i64 %v
no:
  ret i64 -1
}

; ---- %n broadcast to %shape (_elementwise._broadcast_pair's node): new reference;
; %n itself (a new reference) where %changed is 0; NULL on error
define internal ptr @lz_broadcast_node(ptr %ctx, ptr %n, ptr %shape, i1 %changed) {
entry:
  br i1 %changed, label %make, label %same
same:
  call void @Py_IncRef(ptr %n)
  ret ptr %n
make:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %op = call ptr @w(ptr %ctx, i64 $C_BROADCAST_OP$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %d = call ptr @get(ptr %n, i64 %od)
  %src = call ptr (i64, ...) @PyTuple_Pack(i64 1, ptr %n)
  %nosrc = icmp eq ptr %src, null
  br i1 %nosrc, label %fail, label %sign
sign:
  %sig = call ptr @lz_record_sig(ptr %ctx, ptr %op, ptr %d, ptr %shape, ptr %src, ptr %none)
  %nosig = icmp eq ptr %sig, null
  br i1 %nosig, label %failsrc, label %node
node:
  %nd = call ptr @lz_node_arg(ptr %ctx, ptr %op, ptr %d, ptr %shape, ptr %src, ptr %none, ptr %none, ptr %sig)
  ret ptr %nd
failsrc:
  call void @Py_DecRef(ptr %src)
  br label %fail
fail:
  ret ptr null
}

; ---- _elementwise._broadcast_pair natively, for nodes %n1, %n2 (held by the caller)
; whose shapes differ: 1 with new references in %out (the two nodes, each broadcast
; where its shape is not the common one, and the common shape), 0 where the Python
; path decides (a size that is not a Python int, shapes that do not broadcast, an
; empty or too large result), -1 on error
define internal i32 @lz_broadcast_pair(ptr %ctx, ptr %n1, ptr %n2, ptr %out) {
entry:
  %os = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %s1 = call ptr @get(ptr %n1, i64 %os)
  %s2 = call ptr @get(ptr %n2, i64 %os)
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %t1 = call ptr @type(ptr %s1)
  %t2 = call ptr @type(ptr %s2)
  %ok1 = icmp eq ptr %t1, %tt
  %ok2 = icmp eq ptr %t2, %tt
  %ok = and i1 %ok1, %ok2
  br i1 %ok, label %ranks, label %python
ranks:
  %r1 = call i64 @size(ptr %s1)
  %r2 = call i64 @size(ptr %s2)
  %wider = icmp sgt i64 %r1, %r2
  %r = select i1 %wider, i64 %r1, i64 %r2
  %k1 = sub i64 %r, %r1
  %k2 = sub i64 %r, %r2
  %shape = call ptr @PyTuple_New(i64 %r)
  %noshape = icmp eq ptr %shape, null
  br i1 %noshape, label %fail, label %loop
loop:
  %i = phi i64 [0, %ranks], [%i1, %put]
  %n = phi i64 [1, %ranks], [%nv, %put]
  %c1 = phi i1 [0, %ranks], [%c1n, %put]
  %c2 = phi i1 [0, %ranks], [%c2n, %put]
  %more = icmp slt i64 %i, %r
  br i1 %more, label %sizes, label %done
sizes:
  %pad1 = icmp slt i64 %i, %k1
  br i1 %pad1, label %one1, label %read1
read1:
  %j1 = sub i64 %i, %k1
  %v1 = call i64 @lz_size_at(ptr %ctx, ptr %s1, i64 %j1)
  br label %got1
one1:
  br label %got1
got1:
  %d = phi i64 [%v1, %read1], [1, %one1]
  %pad2 = icmp slt i64 %i, %k2
  br i1 %pad2, label %one2, label %read2
read2:
  %j2 = sub i64 %i, %k2
  %v2 = call i64 @lz_size_at(ptr %ctx, ptr %s2, i64 %j2)
  br label %got2
one2:
  br label %got2
got2:
  %e = phi i64 [%v2, %read2], [1, %one2]
  %dneg = icmp slt i64 %d, 0
  %eneg = icmp slt i64 %e, 0
  %neg = or i1 %dneg, %eneg
  br i1 %neg, label %dropshape, label %match
match:
  ; d != e and e != 1: d must be 1, and the size is e
  %ne = icmp ne i64 %d, %e
  %enot1 = icmp ne i64 %e, 1
  %takee = and i1 %ne, %enot1
  %dnot1 = icmp ne i64 %d, 1
  %clash = and i1 %takee, %dnot1
  br i1 %clash, label %dropshape, label %size
size:
  %s = select i1 %takee, i64 %e, i64 %d
  %m = call {i64, i1} @llvm.smul.with.overflow.i64(i64 %n, i64 %s)
  %nv = extractvalue {i64, i1} %m, 0
  %mo = extractvalue {i64, i1} %m, 1
  br i1 %mo, label %dropshape, label %item
item:
  %ch1 = icmp ne i64 %d, %s
  %ch2 = icmp ne i64 %e, %s
  %c1a = or i1 %c1, %ch1
  %c2a = or i1 %c2, %ch2
  %c1n = or i1 %c1a, %pad1
  %c2n = or i1 %c2a, %pad2
  %pv = call ptr @PyLong_FromLongLong(i64 %s)
  %nopv = icmp eq ptr %pv, null
  br i1 %nopv, label %failshape, label %put
put:
  %io = mul i64 %i, 8
  %io1 = add i64 %io, $TUPLE_ITEMS$
  call void @set(ptr %shape, i64 %io1, ptr %pv)
  %i1 = add i64 %i, 1
  br label %loop
done:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %dropshape, label %nodes
nodes:
  %b1 = call ptr @lz_broadcast_node(ptr %ctx, ptr %n1, ptr %shape, i1 %c1)
  %nob1 = icmp eq ptr %b1, null
  br i1 %nob1, label %failshape, label %second
second:
  %b2 = call ptr @lz_broadcast_node(ptr %ctx, ptr %n2, ptr %shape, i1 %c2)
  %nob2 = icmp eq ptr %b2, null
  br i1 %nob2, label %failb1, label %give
give:
  store ptr %b1, ptr %out
  %o1 = getelementptr ptr, ptr %out, i64 1
  store ptr %b2, ptr %o1
  %o2 = getelementptr ptr, ptr %out, i64 2
  store ptr %shape, ptr %o2
  ret i32 1
failb1:
  call void @Py_DecRef(ptr %b1)
  br label %failshape
failshape:
  call void @Py_DecRef(ptr %shape)
  br label %fail
fail:
  ret i32 -1
dropshape:
  ; (a tuple with items not yet set is freed as one: its dealloc skips NULL items)
  call void @Py_DecRef(ptr %shape)
  br label %python
python:
  ret i32 0
}

; ---- the Array of a node of %op made from %shape (stolen), %srcs (stolen, Nodes) and
; %arg, with its signature.  NULL with an error set on error; NULL without one when its
; sizes do not fit (lz_sizes_fit: the Python function checks them)
define internal ptr @lz_make(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %srcs, ptr %arg) {
entry:
  %noshape = icmp eq ptr %shape, null
  %nosrcs = icmp eq ptr %srcs, null
  %missing = or i1 %noshape, %nosrcs
  br i1 %missing, label %failed, label %sizes
sizes:
  %fit = call i1 @lz_sizes_fit(ptr %ctx, ptr %shape)
  br i1 %fit, label %sig, label %failed
sig:
  %sg = call ptr @lz_record_sig(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %srcs, ptr %arg)
  %nosg = icmp eq ptr %sg, null
  br i1 %nosg, label %failed, label %node
node:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %nd = call ptr @lz_node_arg(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %srcs, ptr %arg, ptr %none, ptr %sg)
  call void @Py_DecRef(ptr %shape)
  %nond = icmp eq ptr %nd, null
  br i1 %nond, label %failed_node, label %wrapped
wrapped:
  %r = call ptr @lz_wrap(ptr %ctx, ptr %nd)
  ret ptr %r
failed_node:
  ret ptr null
failed:
  call void @Py_DecRef(ptr %shape)
  call void @Py_DecRef(ptr %srcs)
  ret ptr null
}

; ---- %x == %y for two sizes (Python ints, or symbolic sizes: their __eq__): 1, 0, or
; -1 on error
define internal i32 @lz_same_size(ptr %x, ptr %y) {
  %r = call i32 @PyObject_RichCompareBool(ptr %x, ptr %y, i32 2)
  ret i32 %r
}

; ---- _linear_algebra.matmul's fast path natively (MATMUL): two Arrays of one numeric
; dtype, matrix @ matrix, matrix @ vector or vector @ matrix, recorded as the Python
; function records them (one node each);
; anything else, and sizes that do not fit, to the Python function (C_FALLBACK)
define internal ptr @lz_matmul(ptr %ctx, ptr %x1, ptr %x2) {
entry:
  %at = call ptr @w(ptr %ctx, i64 $C_ARRAY_T$)
  %t1 = call ptr @type(ptr %x1)
  %t2 = call ptr @type(ptr %x2)
  %a1 = icmp eq ptr %t1, %at
  %a2 = icmp eq ptr %t2, %at
  %arrays = and i1 %a1, %a2
  br i1 %arrays, label %nodes, label %python
nodes:
  ; held: a size's __eq__ or ir.structure_id may run Python code meanwhile
  %on = call i64 @wi(ptr %ctx, i64 $C_A_NODE$)
  %a = call ptr @get(ptr %x1, i64 %on)
  %b = call ptr @get(ptr %x2, i64 %on)
  %unseta = icmp eq ptr %a, null
  %unsetb = icmp eq ptr %b, null
  %unset = or i1 %unseta, %unsetb
  br i1 %unset, label %python, label %held
held:
  call void @Py_IncRef(ptr %a)
  call void @Py_IncRef(ptr %b)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %d = call ptr @get(ptr %a, i64 %od)
  %db = call ptr @get(ptr %b, i64 %od)
  %same = icmp eq ptr %d, %db
  br i1 %same, label %numeric, label %pythonab
numeric:
  %num = call ptr @w(ptr %ctx, i64 $C_NUMERIC$)
  %isnum = call i32 @PySet_Contains(ptr %num, ptr %d)
  switch i32 %isnum, label %failab [i32 0, label %pythonab
                                    i32 1, label %shapes]
shapes:
  %osh = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %sa = call ptr @get(ptr %a, i64 %osh)
  %sb = call ptr @get(ptr %b, i64 %osh)
  call void @Py_IncRef(ptr %sa)
  call void @Py_IncRef(ptr %sb)
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %sat = call ptr @type(ptr %sa)
  %sbt = call ptr @type(ptr %sb)
  %ta = icmp eq ptr %sat, %tt
  %tb = icmp eq ptr %sbt, %tt
  %tuples = and i1 %ta, %tb
  br i1 %tuples, label %ranks, label %pythonall
ranks:
  %ra = call i64 @size(ptr %sa)
  %rb = call i64 @size(ptr %sb)
  %a2d = icmp eq i64 %ra, 2
  %b2d = icmp eq i64 %rb, 2
  %a1d = icmp eq i64 %ra, 1
  %b1d = icmp eq i64 %rb, 1
  %mm = and i1 %a2d, %b2d
  %mv = and i1 %a2d, %b1d
  %vm = and i1 %a1d, %b2d
  ; the contracted sizes: sa[-1] and sb[0]
  %ka = select i1 %a2d, i64 1, i64 0
  %any = or i1 %mm, %mv
  %some = or i1 %any, %vm
  br i1 %some, label %inner, label %pythonall
inner:
  %x = call ptr @item(ptr %sa, i64 %ka)
  %y = call ptr @item(ptr %sb, i64 0)
  %eq = call i32 @lz_same_size(ptr %x, ptr %y)
  switch i32 %eq, label %failall [i32 0, label %pythonall
                                  i32 1, label %which]
which:
  %mmop = call ptr @w(ptr %ctx, i64 $C_MATMUL_OP$)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  br i1 %mm, label %matrices, label %vector
matrices:
  %s0 = call ptr @item(ptr %sa, i64 0)
  %s1 = call ptr @item(ptr %sb, i64 1)
  %shape = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %s0, ptr %s1)
  %srcs = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %a, ptr %b)
  %r = call ptr @lz_make(ptr %ctx, ptr %mmop, ptr %d, ptr %shape, ptr %srcs, ptr %none)
  br label %made
vector:
  ; matrix @ vector: the product (m,); vector @ matrix: the product (n,) (one node: the
  ; schedule runs it as a product with one column or row)
  %sizes = select i1 %mv, ptr %sa, ptr %sb
  %pos = select i1 %mv, i64 0, i64 1
  %size = call ptr @item(ptr %sizes, i64 %pos)
  %vshape = call ptr (i64, ...) @PyTuple_Pack(i64 1, ptr %size)
  %vsrcs = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %a, ptr %b)
  %rv = call ptr @lz_make(ptr %ctx, ptr %mmop, ptr %d, ptr %vshape, ptr %vsrcs, ptr %none)
  br label %made
made:
  %res = phi ptr [%r, %matrices], [%rv, %vector]
  call void @Py_DecRef(ptr %sa)
  call void @Py_DecRef(ptr %sb)
  call void @Py_DecRef(ptr %a)
  call void @Py_DecRef(ptr %b)
  %nores = icmp eq ptr %res, null
  br i1 %nores, label %why, label %ok
ok:
  ret ptr %res
why:
  %err = call i1 @failed()
  br i1 %err, label %error, label %python
pythonall:
  call void @Py_DecRef(ptr %sa)
  call void @Py_DecRef(ptr %sb)
  br label %pythonab
pythonab:
  call void @Py_DecRef(ptr %a)
  call void @Py_DecRef(ptr %b)
  br label %python
python:
  %fn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %o = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %x1, ptr %x2, ptr null)
  ret ptr %o
failall:
  call void @Py_DecRef(ptr %sa)
  call void @Py_DecRef(ptr %sb)
  br label %failab
failab:
  call void @Py_DecRef(ptr %a)
  call void @Py_DecRef(ptr %b)
  br label %error
error:
  ret ptr null
}

; ---- x.T natively (TRANSPOSE): a 2-d Array's PERMUTE_DIMS view with axes (1, 0), as
; the Python property records it, linked to its base (_views.track_permuted); anything
; else, and sizes that do not fit, to the Python property's getter (C_FALLBACK)
define internal ptr @lz_transpose(ptr %ctx, ptr %x) {
entry:
  ; (the Array's node and its tuple shape: backend/manipulation.ll's helpers)
  %n = call ptr @lz_node_of(ptr %ctx, ptr %x)
  %unset = icmp eq ptr %n, null
  br i1 %unset, label %python, label %shaped
shaped:
  %sh = call ptr @lz_shape_of(ptr %ctx, ptr %n)
  %nosh = icmp eq ptr %sh, null
  br i1 %nosh, label %pythonn, label %rank
rank:
  %r = call i64 @size(ptr %sh)
  %two = icmp eq i64 %r, 2
  br i1 %two, label %make, label %pythonn
make:
  %s0 = call ptr @item(ptr %sh, i64 0)
  %s1 = call ptr @item(ptr %sh, i64 1)
  %nsh = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %s1, ptr %s0)
  %srcs = call ptr (i64, ...) @PyTuple_Pack(i64 1, ptr %n)
  %op = call ptr @w(ptr %ctx, i64 $C_PERMUTE_OP$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %d = call ptr @get(ptr %n, i64 %od)
  %axes = call ptr @w(ptr %ctx, i64 $C_T_AXES$)
  %out = call ptr @lz_make(ptr %ctx, ptr %op, ptr %d, ptr %nsh, ptr %srcs, ptr %axes)
  %noout = icmp eq ptr %out, null
  br i1 %noout, label %why, label %link
link:
  %tag = call ptr @w(ptr %ctx, i64 $C_PERMUTE$)
  %trk = call ptr @w(ptr %ctx, i64 $C_TRACK$)
  %v = call ptr @lz_link(ptr %ctx, ptr %x, ptr %tag, ptr %axes, ptr %out, ptr %trk)
  call void @Py_DecRef(ptr %n)
  ret ptr %v
why:
  %err = call i1 @failed()
  br i1 %err, label %error, label %pythonn
error:
  call void @Py_DecRef(ptr %n)
  ret ptr null
pythonn:
  call void @Py_DecRef(ptr %n)
  br label %python
python:
  %fn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %o = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %x, ptr null)
  ret ptr %o
}
