; _array_object.record natively (RECORD): the node of an op the front end's Python code
; records (a view, a reduction, a matrix product, a creation...), its signature and its
; Array, in one call instead of 0.8-1.1 us of Python.  Appended to backend/recorder.ll.

; ---- the signature (%id, %leaves, the epoch of %e) of structure part %part (stolen),
; as ir.structure_id and ir.signature_of make it: new reference (None where the part
; has no id); NULL on error
define internal ptr @lz_part_sig(ptr %ctx, ptr %part, ptr %leaves, ptr %e) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %ids = call ptr @w(ptr %ctx, i64 $C_STRUCT_IDS$)
  %hit = call ptr @PyDict_GetItemWithError(ptr %ids, ptr %part)
  %miss = icmp eq ptr %hit, null
  br i1 %miss, label %missed, label %found
found:
  call void @Py_IncRef(ptr %hit)
  br label %haveid
missed:
  ; a new part, or one that cannot be hashed: ir.structure_id decides (it makes the id,
  ; clears the tables when full, and gives None for an unhashable part as it does)
  call void @PyErr_Clear()
  %fn = call ptr @w(ptr %ctx, i64 $C_STRUCTURE_ID$)
  %made = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %part, ptr null)
  %nomade = icmp eq ptr %made, null
  br i1 %nomade, label %failpart, label %haveid
haveid:
  %id = phi ptr [%hit, %found], [%made, %missed]
  call void @Py_DecRef(ptr %part)
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
  ret ptr null
failpart:
  call void @Py_DecRef(ptr %part)
  ret ptr null
}

; ---- the signature of a node recorded from %srcs (0, 1 or 2 Nodes): new reference,
; NULL on error.  The sources' signatures are held while it is made: a call below may
; run Python code, and another thread may evaluate a source meanwhile (its signature
; replaced)
define internal ptr @lz_record_sig(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %srcs, ptr %arg) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %osig = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  %ns = call i64 @size(ptr %srcs)
  switch i64 %ns, label %two [i64 0, label %zero
                              i64 1, label %one]
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
  %same = icmp eq ptr %la, %lb
  br i1 %same, label %shared, label %merge
shared:
  call void @Py_IncRef(ptr %la)
  call void @Py_IncRef(ptr %kb)
  br label %keyed
merge:
  %st = call i32 @lz_merge(ptr %ctx, ptr %la, ptr %lb, ptr %out)
  %merr = icmp slt i32 %st, 0
  br i1 %merr, label %fail, label %merged
merged:
  %mnone = icmp eq i32 %st, 0
  br i1 %mnone, label %nosig, label %where
where:
  %ml = load ptr, ptr %out
  %wp = getelementptr ptr, ptr %out, i64 1
  %mw = load ptr, ptr %wp
  %kw = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %kb, ptr %mw)
  call void @Py_DecRef(ptr %mw)
  %nokw = icmp eq ptr %kw, null
  br i1 %nokw, label %failml, label %keyed
failml:
  call void @Py_DecRef(ptr %ml)
  br label %fail
keyed:
  %leaves = phi ptr [%la, %shared], [%ml, %where]
  %k2 = phi ptr [%kb, %shared], [%kw, %where]
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

; ---- record(op, dtype, shape, srcs=(), arg=None): positional arguments only, a tuple
; shape whose sizes fit, a tuple of at most two Nodes; anything else (and a placeholder)
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
  %few = icmp ule i64 %ns, 2
  br i1 %few, label %nodes, label %python
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
  %fit = call i1 @lz_sizes_fit(ptr %ctx, ptr %shape)
  br i1 %fit, label %sig, label %python
sig:
  %sg = call ptr @lz_record_sig(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %sr, ptr %arg)
  %nosg = icmp eq ptr %sg, null
  br i1 %nosg, label %fail, label %node
node:
  call void @Py_IncRef(ptr %sr)  ; (lz_node_arg steals it)
  %nd = call ptr @lz_node_arg(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %sr, ptr %arg, ptr %none, ptr %sg)
  %nond = icmp eq ptr %nd, null
  br i1 %nond, label %fail, label %wrap
wrap:
  %r = call ptr @lz_wrap(ptr %ctx, ptr %nd)
  ret ptr %r
fail:
  ret ptr null
python:
  %fn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %o = call ptr @PyObject_Vectorcall(ptr %fn, ptr %args, i64 %nargs, ptr null)
  ret ptr %o
}
