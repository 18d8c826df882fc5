; Steps, natively: lazyarray/_steps.py's quick() for a graph whose walk applies (its
; _order) and whose one-op programs are known.  Appended to backend/recorder.ll (one
; unit: it uses that file's helpers and context words).
declare ptr @PySet_New(ptr)
declare ptr @PyMem_Calloc(i64, i64)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare i32 @PySet_Add(ptr, ptr)
declare i32 @PySet_Contains(ptr, ptr)
declare ptr @PyMem_Realloc(ptr, i64)
declare void @PyMem_Free(ptr)
declare ptr @PyErr_NoMemory()
declare i32 @PyDict_SetItem(ptr, ptr, ptr)
declare ptr @PyObject_GetAttr(ptr, ptr)
declare i32 @PyList_SetItem(ptr, i64, ptr)
declare ptr @PyBytes_FromStringAndSize(ptr, i64)
declare ptr @PyBytes_AsString(ptr)
declare double @PyFloat_AsDouble(ptr)
declare double @PyLong_AsDouble(ptr)

; a growable array of strong references (NULL entries allowed): data, count, capacity
%vec = type { ptr, i64, i64 }

define internal i1 @vpush(ptr %v, ptr %o) {
entry:
  %np = getelementptr %vec, ptr %v, i32 0, i32 1
  %cp = getelementptr %vec, ptr %v, i32 0, i32 2
  %n = load i64, ptr %np
  %c = load i64, ptr %cp
  %full = icmp eq i64 %n, %c
  br i1 %full, label %grow, label %put
grow:
  %c2 = mul i64 %c, 2
  %c3 = add i64 %c2, 16
  %bytes = mul i64 %c3, 8
  %d = load ptr, ptr %v
  %nd = call ptr @PyMem_Realloc(ptr %d, i64 %bytes)
  %bad = icmp eq ptr %nd, null
  br i1 %bad, label %fail, label %grown
grown:
  store ptr %nd, ptr %v
  store i64 %c3, ptr %cp
  br label %put
put:
  %data = load ptr, ptr %v
  %slot = getelementptr ptr, ptr %data, i64 %n
  call void @Py_IncRef(ptr %o)
  store ptr %o, ptr %slot
  %n1 = add i64 %n, 1
  store i64 %n1, ptr %np
  ret i1 1
fail:
  %e = call ptr @PyErr_NoMemory()
  ret i1 0
}

; the references a vec still holds released, and its memory
define internal void @vfree(ptr %v) {
entry:
  %np = getelementptr %vec, ptr %v, i32 0, i32 1
  %n = load i64, ptr %np
  %data = load ptr, ptr %v
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %body]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %slot = getelementptr ptr, ptr %data, i64 %i
  %o = load ptr, ptr %slot
  call void @Py_DecRef(ptr %o)
  %i1 = add i64 %i, 1
  br label %loop
done:
  call void @PyMem_Free(ptr %data)
  store ptr null, ptr %v
  store i64 0, ptr %np
  ret void
}

; a set of object addresses, without references (for a walk that runs no Python code,
; whose objects are all held by the graph meanwhile): slots (NULL empty), mask, count;
; its first PSET_STACK slots may be the caller's
%pset = type { ptr, i64, i64 }

define internal i64 @ps_slot(ptr %s, ptr %k) {
entry:
  %slots = load ptr, ptr %s
  %mp = getelementptr %pset, ptr %s, i32 0, i32 1
  %mask = load i64, ptr %mp
  %a = ptrtoint ptr %k to i64
  %h0 = lshr i64 %a, 4
  %h1 = mul i64 %h0, -7046029254386353131
  %h2 = lshr i64 %h1, 29
  %h = xor i64 %h1, %h2
  br label %probe
probe:
  %i = phi i64 [%h, %entry], [%i1, %next]
  %at = and i64 %i, %mask
  %sp = getelementptr ptr, ptr %slots, i64 %at
  %o = load ptr, ptr %sp
  %hit = icmp eq ptr %o, %k
  %free = icmp eq ptr %o, null
  %stop = or i1 %hit, %free
  br i1 %stop, label %found, label %next
next:
  %i1 = add i64 %at, 1
  br label %probe
found:
  ret i64 %at
}

define internal i1 @ps_has(ptr %s, ptr %k) {
entry:
  %at = call i64 @ps_slot(ptr %s, ptr %k)
  %slots = load ptr, ptr %s
  %sp = getelementptr ptr, ptr %slots, i64 %at
  %o = load ptr, ptr %sp
  %hit = icmp ne ptr %o, null
  ret i1 %hit
}

; %k added (it is not in the set); 0 when memory ran out (a MemoryError set)
define internal i1 @ps_add(ptr %s, ptr %own, ptr %k) {
entry:
  %mp = getelementptr %pset, ptr %s, i32 0, i32 1
  %np = getelementptr %pset, ptr %s, i32 0, i32 2
  %mask = load i64, ptr %mp
  %n = load i64, ptr %np
  %n1 = add i64 %n, 1
  %twice = shl i64 %n1, 1
  %full = icmp ugt i64 %twice, %mask
  br i1 %full, label %grow, label %put
grow:
  ; (at most half full: a probe always meets a free slot)
  %old = load ptr, ptr %s
  %cap = add i64 %mask, 1
  %cap2 = shl i64 %cap, 1
  %new = call ptr @PyMem_Calloc(i64 %cap2, i64 8)
  %nomem = icmp eq ptr %new, null
  br i1 %nomem, label %fail, label %move
move:
  %mask2 = sub i64 %cap2, 1
  store ptr %new, ptr %s
  store i64 %mask2, ptr %mp
  br label %mloop
mloop:
  %j = phi i64 [0, %move], [%j1, %mnext]
  %mmore = icmp ult i64 %j, %cap
  br i1 %mmore, label %mbody, label %moved
mbody:
  %op = getelementptr ptr, ptr %old, i64 %j
  %o = load ptr, ptr %op
  %empty = icmp eq ptr %o, null
  br i1 %empty, label %mnext, label %mput
mput:
  %at0 = call i64 @ps_slot(ptr %s, ptr %o)
  %sp0 = getelementptr ptr, ptr %new, i64 %at0
  store ptr %o, ptr %sp0
  br label %mnext
mnext:
  %j1 = add i64 %j, 1
  br label %mloop
moved:
  %mine = icmp eq ptr %old, %own
  br i1 %mine, label %put, label %release
release:
  call void @PyMem_Free(ptr %old)
  br label %put
put:
  %at = call i64 @ps_slot(ptr %s, ptr %k)
  %slots = load ptr, ptr %s
  %sp = getelementptr ptr, ptr %slots, i64 %at
  store ptr %k, ptr %sp
  store i64 %n1, ptr %np
  ret i1 1
fail:
  %e = call ptr @PyErr_NoMemory()
  ret i1 0
}

define internal void @ps_free(ptr %s, ptr %own) {
entry:
  %slots = load ptr, ptr %s
  %mine = icmp eq ptr %slots, %own
  br i1 %mine, label %done, label %release
release:
  call void @PyMem_Free(ptr %slots)
  br label %done
done:
  ret void
}

; a node's value is None and its sources are not empty (read in that order: see
; ir.evaluated): a computed node
define internal i1 @computed(ptr %ctx, ptr %n) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %v = call ptr @get(ptr %n, i64 %ov)
  %isnone = icmp eq ptr %v, %none
  br i1 %isnone, label %srcs, label %no
srcs:
  %os = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %s = call ptr @get(ptr %n, i64 %os)
  %k = call i64 @size(ptr %s)
  %some = icmp sgt i64 %k, 0
  ret i1 %some
no:
  ret i1 0
}

; a shape's element count when every size is a Python int and the count is at most
; STEP_MAX; -1 otherwise
define internal i64 @small(ptr %ctx, ptr %shape) {
entry:
  %ok = alloca i1
  %k = call i64 @size(ptr %shape)
  %max = call i64 @wi(ptr %ctx, i64 $C_STEP_MAX$)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %next]
  %p = phi i64 [1, %entry], [%p1, %next]
  %more = icmp slt i64 %i, %k
  br i1 %more, label %body, label %done
body:
  %d = call ptr @item(ptr %shape, i64 %i)
  %x = call i64 @lz_int(ptr %ctx, ptr %d, ptr %ok)
  %isint = load i1, ptr %ok
  %neg = icmp slt i64 %x, 0
  %notint = xor i1 %isint, 1
  %bad = or i1 %neg, %notint
  br i1 %bad, label %no, label %mul
mul:
  %m = call {i64, i1} @llvm.smul.with.overflow.i64(i64 %p, i64 %x)
  %p1 = extractvalue {i64, i1} %m, 0
  %mo = extractvalue {i64, i1} %m, 1
  %big = icmp sgt i64 %p1, %max
  %out = or i1 %mo, %big
  br i1 %out, label %no, label %next
next:
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret i64 %p
no:
  ret i64 -1
}

; ---- the computed nodes below %root (itself included) in topological order, the first
; source first, into %order (_steps._order): 1; 0 when one is larger than STEP_MAX
; elements or has a size that is not an int, or fewer than two are not views; -1 on error
define internal i32 @lz_order(ptr %ctx, ptr %root, ptr %order) {
entry:
  %stack = alloca %vec
  store %vec zeroinitializer, ptr %stack
  %opsp = alloca i64
  store i64 0, ptr %opsp
  %pushedp = alloca i1
  %sn = getelementptr %vec, ptr %stack, i32 0, i32 1
  %views = call ptr @w(ptr %ctx, i64 $C_VIEWS$)
  %os = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  ; the nodes done: no Python code runs here, and each is held by the graph
  %own = alloca [$PSET_STACK$ x ptr]
  call void @llvm.memset.p0.i64(ptr %own, i8 0, i64 $PSET_STACK_BYTES$, i1 false)
  %done = alloca %pset
  store ptr %own, ptr %done
  %dmask = getelementptr %pset, ptr %done, i32 0, i32 1
  store i64 $PSET_STACK_MASK$, ptr %dmask
  %dcount = getelementptr %pset, ptr %done, i32 0, i32 2
  store i64 0, ptr %dcount
  br label %start
start:
  %ok0 = call i1 @vpush(ptr %stack, ptr %root)
  br i1 %ok0, label %loop, label %fail
loop:
  %n = load i64, ptr %sn
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %finish, label %top
top:
  %data = load ptr, ptr %stack
  %last = sub i64 %n, 1
  %tp = getelementptr ptr, ptr %data, i64 %last
  %node = load ptr, ptr %tp  ; (held by the stack)
  %isdone = call i1 @ps_has(ptr %done, ptr %node)
  br i1 %isdone, label %pop, label %visit
pop:
  store i64 %last, ptr %sn
  call void @Py_DecRef(ptr %node)
  br label %loop
visit:
  ; its computed sources not done yet go on the stack, the last first (so the first
  ; source is done first); the sources' tuple is held while it is read
  %srcs = call ptr @get(ptr %node, i64 %os)
  call void @Py_IncRef(ptr %srcs)
  %k = call i64 @size(ptr %srcs)
  store i1 0, ptr %pushedp
  br label %sloop
sloop:
  %j = phi i64 [%k, %visit], [%j1, %snext]
  %smore = icmp sgt i64 %j, 0
  br i1 %smore, label %sbody, label %sdone
sbody:
  %j1 = sub i64 %j, 1
  %s = call ptr @item(ptr %srcs, i64 %j1)
  %sisdone = call i1 @ps_has(ptr %done, ptr %s)
  br i1 %sisdone, label %snext, label %scomputed
scomputed:
  %sc = call i1 @computed(ptr %ctx, ptr %s)
  br i1 %sc, label %spush, label %snext
spush:
  %pok = call i1 @vpush(ptr %stack, ptr %s)
  br i1 %pok, label %spushed, label %failsrcs
spushed:
  store i1 1, ptr %pushedp
  br label %snext
snext:
  br label %sloop
failsrcs:
  call void @Py_DecRef(ptr %srcs)
  br label %fail
sdone:
  call void @Py_DecRef(ptr %srcs)
  %pushed = load i1, ptr %pushedp
  br i1 %pushed, label %loop, label %finishnode
finishnode:
  ; off the stack: its reference is this function's now
  store i64 %last, ptr %sn
  %add = call i1 @ps_add(ptr %done, ptr %own, ptr %node)
  br i1 %add, label %still, label %failnode
still:
  %c = call i1 @computed(ptr %ctx, ptr %node)  ; (evaluated meanwhile: not a step)
  br i1 %c, label %sized, label %release
sized:
  %osh = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %shape = call ptr @get(ptr %node, i64 %osh)
  %count = call i64 @small(ptr %ctx, ptr %shape)
  %large = icmp slt i64 %count, 0
  br i1 %large, label %notnode, label %isview
isview:
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %op = call ptr @get(ptr %node, i64 %oo)
  %v = call i32 @PySet_Contains(ptr %views, ptr %op)
  %verr = icmp slt i32 %v, 0
  br i1 %verr, label %failnode, label %counted
counted:
  %notview = icmp eq i32 %v, 0
  %inc = zext i1 %notview to i64
  %ops = load i64, ptr %opsp
  %ops1 = add i64 %ops, %inc
  store i64 %ops1, ptr %opsp
  %aok = call i1 @vpush(ptr %order, ptr %node)
  br i1 %aok, label %release, label %failnode
release:
  call void @Py_DecRef(ptr %node)
  br label %loop
notnode:
  call void @Py_DecRef(ptr %node)
  call void @vfree(ptr %stack)
  call void @ps_free(ptr %done, ptr %own)
  ret i32 0
failnode:
  call void @Py_DecRef(ptr %node)
  br label %fail
finish:
  call void @vfree(ptr %stack)
  call void @ps_free(ptr %done, ptr %own)
  %total = load i64, ptr %opsp
  %enough = icmp sge i64 %total, 2
  %r = zext i1 %enough to i32
  ret i32 %r
fail:
  call void @vfree(ptr %stack)
  call void @ps_free(ptr %done, ptr %own)
  br label %error
error:
  ret i32 -1
}

; ---- the structure id of a signature's part (ir.structure_id; None when the part
; cannot be hashed): new reference, NULL on error
define internal ptr @lz_sid(ptr %ctx, ptr %part) {
entry:
  %h = call i64 @lz_shash(ptr %ctx, ptr %part, i64 3)
  %gen = call i64 @lz_ids_gen(ptr %ctx)
  %slot = call i64 @lz_slot(i64 %h, i64 $IDCACHE_MASK$)
  %e = getelementptr [$IDCACHE$ x [4 x i64]], ptr @lz_sidcache, i64 0, i64 %slot
  %e1 = getelementptr i64, ptr %e, i64 1
  %e2 = getelementptr i64, ptr %e, i64 2
  %e3 = getelementptr i64, ptr %e, i64 3
  %th = load i64, ptr %e
  %tg = load i64, ptr %e3
  %sh = icmp eq i64 %th, %h
  %sg = icmp eq i64 %tg, %gen
  %both = and i1 %sh, %sg
  %tp = load ptr, ptr %e1
  %filled = icmp ne ptr %tp, null
  %maybe = and i1 %both, %filled
  br i1 %maybe, label %compare, label %lookup
compare:
  %same = call i1 @lz_same(ptr %ctx, ptr %tp, ptr %part, i64 3)
  br i1 %same, label %cached, label %lookup
cached:
  %ci = load ptr, ptr %e2
  call void @Py_IncRef(ptr %ci)
  ret ptr %ci
lookup:
  %ids = call ptr @w(ptr %ctx, i64 $C_STRUCT_IDS$)
  %hit = call ptr @PyDict_GetItemWithError(ptr %ids, ptr %part)
  %miss = icmp eq ptr %hit, null
  br i1 %miss, label %python, label %found
found:
  call void @Py_IncRef(ptr %hit)
  br label %remember
python:
  ; a miss, or a part that cannot be hashed: the Python function says which
  call void @PyErr_Clear()
  %fn = call ptr @w(ptr %ctx, i64 $C_STRUCTURE_ID$)
  %r = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %part, ptr null)
  %nor = icmp eq ptr %r, null
  br i1 %nor, label %done, label %made
made:
  ; (None: the part cannot be hashed; not remembered.  The generation is read again:
  ; the call may have cleared the ids)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %isnone = icmp eq ptr %r, %none
  br i1 %isnone, label %done, label %remember
remember:
  %i = phi ptr [%hit, %found], [%r, %made]
  ; (the entry is read again: the calls above may run Python code, and another thread
  ; may have replaced it meanwhile)
  %gen2 = call i64 @lz_ids_gen(ptr %ctx)
  %to = load ptr, ptr %e1
  %ti = load ptr, ptr %e2
  call void @Py_IncRef(ptr %part)
  call void @Py_IncRef(ptr %i)
  store i64 %h, ptr %e
  store ptr %part, ptr %e1
  store ptr %i, ptr %e2
  store i64 %gen2, ptr %e3
  call void @Py_DecRef(ptr %to)
  call void @Py_DecRef(ptr %ti)
  ret ptr %i
done:
  %out = phi ptr [null, %python], [%r, %made]
  ret ptr %out
}

; ---- lz_sid's cache: structure parts met lately, by a hash of their contents (exact
; ints by value, tuples by their items to depth 3, anything else by identity), each
; entry (hash, part, id, ids' generation) holding its part and id.  Compared by
; lz_same, which answers equal only where Python's == does (identity, equal exact
; ints, tuples of such items): a false miss looks in ir._IDS as before.  A part's
; nested tuples cost the dict a hash and an item-by-item comparison through Python's
; slots: about 1,700 of the 6,300 instructions of a recorded `a[1:-1]` (callgrind).
@lz_sidcache = internal global [$IDCACHE$ x [4 x i64]] zeroinitializer

define internal i64 @lz_shash(ptr %ctx, ptr %o, i64 %depth) {
entry:
  %it = call ptr @w(ptr %ctx, i64 $C_INT_T$)
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %h = call i64 @lz_shash_in(ptr %it, ptr %tt, ptr %o, i64 %depth)
  ret i64 %h
}

; (a tuple's items to %depth: exact ints by value, tuples by their items, anything
; else, and a tuple past %depth, by its address)
define internal i64 @lz_shash_in(ptr %it, ptr %tt, ptr %o, i64 %depth) {
entry:
  %t = call ptr @type(ptr %o)
  %istuple = icmp eq ptr %t, %tt
  %deep = icmp sgt i64 %depth, 0
  %walk = and i1 %istuple, %deep
  br i1 %walk, label %tuple, label %identity
tuple:
  %n = call i64 @size(ptr %o)
  %d1 = sub i64 %depth, 1
  br label %loop
loop:
  %i = phi i64 [0, %tuple], [%i1, %mix]
  %h = phi i64 [%n, %tuple], [%hn, %mix]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %step, label %out
step:
  %x = call ptr @item(ptr %o, i64 %i)
  %tx = call ptr @type(ptr %x)
  %xint = icmp eq ptr %tx, %it
  br i1 %xint, label %int, label %notint
int:
  %hv = call i64 @lz_int_hash(ptr %x)
  br label %mix
notint:
  %xtuple = icmp eq ptr %tx, %tt
  br i1 %xtuple, label %inner, label %addr
inner:
  %hi = call i64 @lz_shash_in(ptr %it, ptr %tt, ptr %x, i64 %d1)
  br label %mix
addr:
  %ha = ptrtoint ptr %x to i64
  br label %mix
mix:
  %hx = phi i64 [%hi, %inner], [%ha, %addr], [%hv, %int]
  %hm = xor i64 %h, %hx
  %hn0 = mul i64 %hm, -4417276706812531889
  %hn = add i64 %hn0, 1
  %i1 = add i64 %i, 1
  br label %loop
out:
  ret i64 %h
identity:
  %p = ptrtoint ptr %o to i64
  ret i64 %p
}

; (an exact int: its value where it fits 64 bits, else its address, as lz_same_in
; compares them)
define internal i64 @lz_int_hash(ptr %x) {
  %of = alloca i32
  %v = call i64 @PyLong_AsLongLongAndOverflow(ptr %x, ptr %of)
  %ovf = load i32, ptr %of
  %fits = icmp eq i32 %ovf, 0
  %vx = xor i64 %v, 6148914691236517205
  %a = ptrtoint ptr %x to i64
  %h = select i1 %fits, i64 %vx, i64 %a
  ret i64 %h
}

define internal i1 @lz_same(ptr %ctx, ptr %a, ptr %b, i64 %depth) {
entry:
  %it = call ptr @w(ptr %ctx, i64 $C_INT_T$)
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %r = call i1 @lz_same_in(ptr %it, ptr %tt, ptr %a, ptr %b, i64 %depth)
  ret i1 %r
}

; (two items: the same object, exact ints of one value, or tuples of such items)
define internal i1 @lz_same_in(ptr %it, ptr %tt, ptr %a, ptr %b, i64 %depth) {
entry:
  %oa = alloca i32
  %ob = alloca i32
  %id = icmp eq ptr %a, %b
  br i1 %id, label %yes, label %types
types:
  %ta = call ptr @type(ptr %a)
  %tb = call ptr @type(ptr %b)
  %st = icmp eq ptr %ta, %tb
  br i1 %st, label %kind, label %no
kind:
  %isint = icmp eq ptr %ta, %it
  br i1 %isint, label %int, label %other
int:
  %va = call i64 @PyLong_AsLongLongAndOverflow(ptr %a, ptr %oa)
  %vb = call i64 @PyLong_AsLongLongAndOverflow(ptr %b, ptr %ob)
  %fa = load i32, ptr %oa
  %fb = load i32, ptr %ob
  %f = or i32 %fa, %fb
  %fit = icmp eq i32 %f, 0
  %eq = icmp eq i64 %va, %vb
  %r = and i1 %fit, %eq
  ret i1 %r
other:
  %istuple = icmp eq ptr %ta, %tt
  %deep = icmp sgt i64 %depth, 0
  %walk = and i1 %istuple, %deep
  br i1 %walk, label %tuple, label %no
tuple:
  %na = call i64 @size(ptr %a)
  %nb = call i64 @size(ptr %b)
  %sn = icmp eq i64 %na, %nb
  %d1 = sub i64 %depth, 1
  br i1 %sn, label %loop, label %no
loop:
  %i = phi i64 [0, %tuple], [%i1, %next]
  %more = icmp slt i64 %i, %na
  br i1 %more, label %cmp, label %yes
cmp:
  %xa = call ptr @item(ptr %a, i64 %i)
  %xb = call ptr @item(ptr %b, i64 %i)
  %i1 = add i64 %i, 1
  %sameitem = icmp eq ptr %xa, %xb
  br i1 %sameitem, label %next, label %deeper
deeper:
  %s = call i1 @lz_same_in(ptr %it, ptr %tt, ptr %xa, ptr %xb, i64 %d1)
  br i1 %s, label %next, label %no
next:
  br label %loop
yes:
  ret i1 1
no:
  ret i1 0
}

; ---- a step's signature from its sources' (ir.signature): new reference (None: no
; signature), NULL on error: the recording's own (backend/record.ll)
define internal ptr @lz_ssig(ptr %ctx, ptr %n, ptr %srcs) {
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %op = call ptr @get(ptr %n, i64 %oo)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %dt = call ptr @get(ptr %n, i64 %od)
  %osh = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %shape = call ptr @get(ptr %n, i64 %osh)
  %oa = call i64 @wi(ptr %ctx, i64 $C_N_ARG$)
  %arg = call ptr @get(ptr %n, i64 %oa)
  %sig = call ptr @lz_record_sig(ptr %ctx, ptr %op, ptr %dt, ptr %shape, ptr %srcs, ptr %arg)
  ret ptr %sig
}

; ---- ir.evaluated(%n, %value (stolen), %leaf, inside=not %quiet): 0, or -1 on error
; (the node unchanged unless only the epoch's update failed)
define internal i32 @lz_evaluated(ptr %ctx, ptr %n, ptr %value, ptr %leaf, i1 %quiet) {
entry:
  %of = alloca i32
  %d = call ptr @w(ptr %ctx, i64 $C_IR_DICT$)
  %key = call ptr @w(ptr %ctx, i64 $C_EPOCH_KEY$)
  br i1 %quiet, label %vt, label %loud
loud:
  %ep = call ptr @PyDict_GetItemWithError(ptr %d, ptr %key)
  %noep = icmp eq ptr %ep, null
  br i1 %noep, label %fail, label %epoch
epoch:
  store i32 0, ptr %of
  %x = call i64 @PyLong_AsLongLongAndOverflow(ptr %ep, ptr %of)
  %o = load i32, ptr %of
  %over = icmp ne i32 %o, 0
  br i1 %over, label %fail, label %next
next:
  %x1 = add i64 %x, 1
  %grown = call ptr @PyLong_FromLongLong(i64 %x1)
  %nonew = icmp eq ptr %grown, null
  br i1 %nonew, label %fail, label %vt
vt:
  %new = phi ptr [null, %entry], [%grown, %next]
  %vtuple = call ptr (i64, ...) @PyTuple_Pack(i64 1, ptr %value)
  %novt = icmp eq ptr %vtuple, null
  br i1 %novt, label %failnew, label %sig
sig:
  %never = call ptr @w(ptr %ctx, i64 $C_NEVER$)
  %s = call ptr (i64, ...) @PyTuple_Pack(i64 3, ptr %leaf, ptr %vtuple, ptr %never)
  call void @Py_DecRef(ptr %vtuple)
  %nos = icmp eq ptr %s, null
  br i1 %nos, label %failnew, label %set
set:
  ; the value first, then the signature, then the sources (see ir.evaluated)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %oldv = call ptr @get(ptr %n, i64 %ov)
  call void @set(ptr %n, i64 %ov, ptr %value)
  %osg = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  %olds = call ptr @get(ptr %n, i64 %osg)
  call void @set(ptr %n, i64 %osg, ptr %s)
  %empty = call ptr @w(ptr %ctx, i64 $C_EMPTY$)
  call void @Py_IncRef(ptr %empty)
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %oldsrc = call ptr @get(ptr %n, i64 %osr)
  call void @set(ptr %n, i64 %osr, ptr %empty)
  br i1 %quiet, label %release, label %grow
grow:
  %put = call i32 @PyDict_SetItem(ptr %d, ptr %key, ptr %new)
  call void @Py_DecRef(ptr %new)
  br label %release
release:
  %r = phi i32 [0, %set], [%put, %grow]
  call void @Py_DecRef(ptr %oldv)
  call void @Py_DecRef(ptr %olds)
  call void @Py_DecRef(ptr %oldsrc)
  ret i32 %r
failnew:
  call void @Py_DecRef(ptr %new)
  br label %fail
fail:
  call void @Py_DecRef(ptr %value)
  ret i32 -1
}

; a source of %n is a computed node (a view below: the Python _sign signs them)
define internal i1 @below(ptr %ctx, ptr %srcs) {
entry:
  %k = call i64 @size(ptr %srcs)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %next]
  %more = icmp slt i64 %i, %k
  br i1 %more, label %body, label %no
body:
  %s = call ptr @item(ptr %srcs, i64 %i)
  %c = call i1 @computed(ptr %ctx, ptr %s)
  br i1 %c, label %yes, label %next
next:
  %i1 = add i64 %i, 1
  br label %loop
yes:
  ret i1 1
no:
  ret i1 0
}

; a position among a tuple's items (a Python int), or -1
define internal i64 @position(ptr %ctx, ptr %positions, i64 %i, i64 %count) {
entry:
  %ok = alloca i1
  %p = call ptr @item(ptr %positions, i64 %i)
  %x = call i64 @lz_int(ptr %ctx, ptr %p, ptr %ok)
  %isint = load i1, ptr %ok
  %neg = icmp slt i64 %x, 0
  %past = icmp sge i64 %x, %count
  %out = or i1 %neg, %past
  %notint = xor i1 %isint, 1
  %bad = or i1 %out, %notint
  br i1 %bad, label %no, label %yes
yes:
  ret i64 %x
no:
  ret i64 -1
}

; a float slot's value of %v: a float's, or an int's as float(v) rounds it (struct's "d"
; packs an int so: `x * 2` takes the slot as `x * 2.0` does); %ok false for anything else
; and for an int too large for a double (the packers raise there: left to them)
define internal double @lz_as_double(ptr %ctx, ptr %v, ptr %ok) {
entry:
  %t = call ptr @type(ptr %v)
  %ft = call ptr @w(ptr %ctx, i64 $C_FLOAT_T$)
  %isf = icmp eq ptr %t, %ft
  br i1 %isf, label %float, label %notfloat
float:
  %d = call double @PyFloat_AsDouble(ptr %v)
  store i1 1, ptr %ok
  ret double %d
notfloat:
  %it = call ptr @w(ptr %ctx, i64 $C_INT_T$)
  %isi = icmp eq ptr %t, %it
  br i1 %isi, label %int, label %no
int:
  %x = call double @PyLong_AsDouble(ptr %v)
  %maybe = fcmp oeq double %x, -1.0
  br i1 %maybe, label %check, label %yes
check:
  %err = call ptr @PyErr_Occurred()
  %failed = icmp ne ptr %err, null
  br i1 %failed, label %clear, label %yes
clear:
  call void @PyErr_Clear()
  br label %no
yes:
  store i1 1, ptr %ok
  ret double %x
no:
  store i1 0, ptr %ok
  ret double 0.0
}

; one scalar packed into its slot at %at (runtime.scalar_packer's float64 and int64
; formats: the value, then zeros): 1, or 0 when its value is not what the slot takes
define internal i1 @pack(ptr %ctx, ptr %v, i64 %kind, ptr %at) {
entry:
  %ok = alloca i1
  %t = call ptr @type(ptr %v)
  %rest = getelementptr i8, ptr %at, i64 8
  store i64 0, ptr %rest
  switch i64 %kind, label %no [i64 0, label %float
                               i64 1, label %int]
float:
  %d = call double @lz_as_double(ptr %ctx, ptr %v, ptr %ok)
  %isf = load i1, ptr %ok
  br i1 %isf, label %putf, label %no
putf:
  store double %d, ptr %at
  ret i1 1
int:
  ; (int64's minimum is left to the leaf runner, as lz_int leaves it)
  %x = call i64 @lz_int(ptr %ctx, ptr %v, ptr %ok)
  %isi = load i1, ptr %ok
  br i1 %isi, label %puti, label %no
puti:
  store i64 %x, ptr %at
  ret i1 1
no:
  ret i1 0
}

; ---- a one-op program's front door called here (_steps.Direct): its output (new
; reference); NULL with an error set on error; NULL without one when the entry has
; no Direct, its door is not open, a scalar is not what its slot takes natively, or the
; door falls back: then the leaf runner runs it
define internal ptr @lz_direct(ptr %ctx, ptr %ent, ptr %leaves) {
entry:
  %n = call i64 @size(ptr %ent)
  %three = icmp eq i64 %n, 3
  br i1 %three, label %spec, label %no
spec:
  %d = call ptr @item(ptr %ent, i64 2)
  %r = call ptr @lz_door_of(ptr %ctx, ptr %d, ptr %leaves)
  ret ptr %r
no:
  ret ptr null
}

; ---- the front door of the program of Direct %d (anything else: NULL without an error)
; called on its inputs and scalars among %leaves: its output (a tuple for a program of
; several outputs), NULL as lz_direct returns it
define internal ptr @lz_door_of(ptr %ctx, ptr %d, ptr %leaves) {
entry:
  %args = alloca [$MAX_DIRECT$ x ptr]
  %dtp = call ptr @type(ptr %d)
  %dt = call ptr @w(ptr %ctx, i64 $C_DIRECT_T$)
  %isd = icmp eq ptr %dtp, %dt
  br i1 %isd, label %fields, label %no
fields:
  %o1 = call i64 @wi(ptr %ctx, i64 $C_D_RUNNER$)
  %runner = call ptr @get(ptr %d, i64 %o1)
  %o2 = call i64 @wi(ptr %ctx, i64 $C_D_INPUTS$)
  %inputs = call ptr @get(ptr %d, i64 %o2)
  %o3 = call i64 @wi(ptr %ctx, i64 $C_D_SCALARS$)
  %scalars = call ptr @get(ptr %d, i64 %o3)
  %o4 = call i64 @wi(ptr %ctx, i64 $C_D_KINDS$)
  %kinds = call ptr @get(ptr %d, i64 %o4)
  %ni = call i64 @size(ptr %inputs)
  %ns = call i64 @size(ptr %scalars)
  %nk = call i64 @size(ptr %kinds)
  %nl = call i64 @size(ptr %leaves)
  %some = icmp sgt i64 %ns, 0
  %extra = zext i1 %some to i64
  %nargs = add i64 %ni, %extra
  %fits = icmp sle i64 %nargs, $MAX_DIRECT$
  %samek = icmp eq i64 %nk, %ns
  %ok = and i1 %fits, %samek
  br i1 %ok, label %door, label %no
door:
  %name = call ptr @w(ptr %ctx, i64 $C_DOOR_NAME$)
  %dr = call ptr @PyObject_GetAttr(ptr %runner, ptr %name)
  %nodr = icmp eq ptr %dr, null
  br i1 %nodr, label %error, label %isopen
isopen:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %closed = icmp eq ptr %dr, %none
  br i1 %closed, label %nodoor, label %ins
ins:
  %i = phi i64 [0, %isopen], [%i1, %put]
  %imore = icmp slt i64 %i, %ni
  br i1 %imore, label %in, label %scal
in:
  %pi = call i64 @position(ptr %ctx, ptr %inputs, i64 %i, i64 %nl)
  %badi = icmp slt i64 %pi, 0
  br i1 %badi, label %nodoor, label %put
put:
  %x = call ptr @item(ptr %leaves, i64 %pi)
  %slot = getelementptr ptr, ptr %args, i64 %i
  store ptr %x, ptr %slot
  %i1 = add i64 %i, 1
  br label %ins
scal:
  br i1 %some, label %bytes, label %call
bytes:
  %size = mul i64 %ns, $SCALAR_SLOT$
  %b = call ptr @PyBytes_FromStringAndSize(ptr null, i64 %size)
  %nob = icmp eq ptr %b, null
  br i1 %nob, label %errordoor, label %buffer
buffer:
  %buf = call ptr @PyBytes_AsString(ptr %b)
  br label %sloop
sloop:
  %j = phi i64 [0, %buffer], [%j1, %packed]
  %jmore = icmp slt i64 %j, %ns
  br i1 %jmore, label %sbody, label %sdone
sbody:
  %pj = call i64 @position(ptr %ctx, ptr %scalars, i64 %j, i64 %nl)
  %kj = call i64 @position(ptr %ctx, ptr %kinds, i64 %j, i64 2)
  %badp = icmp slt i64 %pj, 0
  %badk = icmp slt i64 %kj, 0
  %badj = or i1 %badp, %badk
  br i1 %badj, label %nobytes, label %value
value:
  %v = call ptr @item(ptr %leaves, i64 %pj)
  %off = mul i64 %j, $SCALAR_SLOT$
  %at = getelementptr i8, ptr %buf, i64 %off
  %pk = call i1 @pack(ptr %ctx, ptr %v, i64 %kj, ptr %at)
  br i1 %pk, label %packed, label %nobytes
packed:
  %j1 = add i64 %j, 1
  br label %sloop
sdone:
  %last = getelementptr ptr, ptr %args, i64 %ni
  store ptr %b, ptr %last
  br label %call
call:
  %held = phi ptr [null, %scal], [%b, %sdone]
  %r = call ptr @PyObject_Vectorcall(ptr %dr, ptr %args, i64 %nargs, ptr null)
  call void @Py_DecRef(ptr %held)
  call void @Py_DecRef(ptr %dr)
  %nor = icmp eq ptr %r, null
  br i1 %nor, label %error, label %result
result:
  %fb = call ptr @w(ptr %ctx, i64 $C_DOOR_FALLBACK$)
  %isfb = icmp eq ptr %r, %fb
  br i1 %isfb, label %fellback, label %done
done:
  ret ptr %r
fellback:
  call void @Py_DecRef(ptr %r)
  br label %no
nobytes:
  call void @Py_DecRef(ptr %b)
  br label %nodoor
nodoor:
  call void @Py_DecRef(ptr %dr)
  br label %no
no:
  ret ptr null
errordoor:
  call void @Py_DecRef(ptr %dr)
  br label %error
error:
  ret ptr null
}

; ---- the computed sources among %srcs (views the steps passed) signed from their own
; sources as they are now (_steps._sign), when those are all leaves: 1; 0 when one is not
; (the Python function signs them); -1 on error
define internal i32 @lz_sign_views(ptr %ctx, ptr %srcs) {
entry:
  %k = call i64 @size(ptr %srcs)
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %osg = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  br label %check
check:
  ; first, that every computed source reads leaves only (nothing is signed otherwise)
  %i = phi i64 [0, %entry], [%i1, %cnext]
  %more = icmp slt i64 %i, %k
  br i1 %more, label %cbody, label %sign
cbody:
  %s = call ptr @item(ptr %srcs, i64 %i)
  %c = call i1 @computed(ptr %ctx, ptr %s)
  br i1 %c, label %deep, label %cnext
deep:
  %ss = call ptr @get(ptr %s, i64 %osr)
  %b = call i1 @below(ptr %ctx, ptr %ss)
  br i1 %b, label %no, label %cnext
cnext:
  %i1 = add i64 %i, 1
  br label %check
sign:
  %j = phi i64 [0, %check], [%j1, %snext]
  %smore = icmp slt i64 %j, %k
  br i1 %smore, label %sbody, label %yes
sbody:
  %v = call ptr @item(ptr %srcs, i64 %j)
  %vc = call i1 @computed(ptr %ctx, ptr %v)
  br i1 %vc, label %one, label %snext
one:
  call void @Py_IncRef(ptr %v)
  %vs = call ptr @get(ptr %v, i64 %osr)
  call void @Py_IncRef(ptr %vs)
  %sig = call ptr @lz_ssig(ptr %ctx, ptr %v, ptr %vs)
  call void @Py_DecRef(ptr %vs)
  %nosig = icmp eq ptr %sig, null
  br i1 %nosig, label %fail, label %store
store:
  %old = call ptr @get(ptr %v, i64 %osg)
  call void @set(ptr %v, i64 %osg, ptr %sig)
  call void @Py_DecRef(ptr %old)
  call void @Py_DecRef(ptr %v)
  br label %snext
snext:
  %j1 = add i64 %j, 1
  br label %sign
yes:
  ret i32 1
no:
  ret i32 0
fail:
  call void @Py_DecRef(ptr %v)
  ret i32 -1
}

; the first step of an evaluation of %root (%count computed nodes) announced:
; C_FIRST(root, count); 0 on error
define internal i1 @lz_announce(ptr %ctx, ptr %root, i64 %count) {
entry:
  ; without the logging package imported, only counted (_steps.LISTENERS log)
  %mods = call ptr @w(ptr %ctx, i64 $C_SYS_MODULES$)
  %lname = call ptr @w(ptr %ctx, i64 $C_LOGGING_NAME$)
  %lg = call ptr @PyDict_GetItemWithError(ptr %mods, ptr %lname)
  %nolog = icmp eq ptr %lg, null
  br i1 %nolog, label %quiet, label %python
quiet:
  %lerr = call i1 @failed()
  br i1 %lerr, label %fail, label %tally
tally:
  %cs = call ptr @w(ptr %ctx, i64 $C_COUNTS_AT$)
  %c0 = load i64, ptr %cs
  %c1 = add i64 %c0, 1
  store i64 %c1, ptr %cs
  ret i1 1
python:
  %ffn = call ptr @w(ptr %ctx, i64 $C_FIRST$)
  %cnt = call ptr @PyLong_FromLongLong(i64 %count)
  %nocnt = icmp eq ptr %cnt, null
  br i1 %nocnt, label %fail, label %call
call:
  %fr = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %ffn, ptr %root, ptr %cnt, ptr null)
  call void @Py_DecRef(ptr %cnt)
  %nofr = icmp eq ptr %fr, null
  br i1 %nofr, label %fail, label %announced
announced:
  call void @Py_DecRef(ptr %fr)
  ret i1 1
fail:
  ret i1 0
}

; ---- one step: %n (held) signed from its sources as they are now, then run by its
; one-op program in %fast if there is one (_program._run_known); 1 ran, 0 not known, -1
; on error.  %first: call C_FIRST(root, count) before running it
define internal i32 @lz_step(ptr %ctx, ptr %n, ptr %fast, i1 %first, ptr %root, i64 %count) {
entry:
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %osg = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  %srcs = call ptr @get(ptr %n, i64 %osr)
  call void @Py_IncRef(ptr %srcs)
  %b = call i1 @below(ptr %ctx, ptr %srcs)
  br i1 %b, label %signed, label %own
signed:
  ; views of leaves below: signed here; deeper ones by the Python function
  %vs = call i32 @lz_sign_views(ptr %ctx, ptr %srcs)
  switch i32 %vs, label %viewerror [i32 1, label %own
                                    i32 0, label %python]
viewerror:
  call void @Py_DecRef(ptr %srcs)
  br label %error
python:
  call void @Py_DecRef(ptr %srcs)
  %sfn = call ptr @w(ptr %ctx, i64 $C_SIGN$)
  %sr = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %sfn, ptr %n, ptr null)
  %nosr = icmp eq ptr %sr, null
  br i1 %nosr, label %error, label %signeddone
signeddone:
  call void @Py_DecRef(ptr %sr)
  br label %lookup
own:
  %ns = call ptr @lz_ssig(ptr %ctx, ptr %n, ptr %srcs)
  call void @Py_DecRef(ptr %srcs)
  %nons = icmp eq ptr %ns, null
  br i1 %nons, label %error, label %store
store:
  %old = call ptr @get(ptr %n, i64 %osg)
  call void @set(ptr %n, i64 %osg, ptr %ns)
  call void @Py_DecRef(ptr %old)
  br label %lookup
lookup:
  %k = call i32 @lz_known(ptr %ctx, ptr %n, ptr %fast, i1 %first, ptr %root, i64 %count, i1 0)
  ret i32 %k
error:
  ret i32 -1
}

; ---- _program._run_known([n]): %n given its value by the program in %fast (a dict) of
; its signature, when that is current, %n has no value yet and the program is known: 1
; ran, 0 not known, -1 on error.  %first: call C_FIRST(root, count) before running it;
; %quiet: the epoch stays (ir.evaluated's inside=False: nothing holds %n)
define internal i32 @lz_known(ptr %ctx, ptr %n, ptr %fast, i1 %first, ptr %root, i64 %count, i1 %quiet) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %osg = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  %sig = call ptr @get(ptr %n, i64 %osg)
  %ok = call i1 @triple(ptr %ctx, ptr %sig)
  br i1 %ok, label %held, label %unknown
held:
  call void @Py_IncRef(ptr %sig)
  %e = call ptr @item(ptr %sig, i64 2)
  %d = call ptr @w(ptr %ctx, i64 $C_IR_DICT$)
  %key = call ptr @w(ptr %ctx, i64 $C_EPOCH_KEY$)
  %ep = call ptr @PyDict_GetItemWithError(ptr %d, ptr %key)
  %noep = icmp eq ptr %ep, null
  br i1 %noep, label %failsig, label %cmp
cmp:
  %cur = call i32 @PyObject_RichCompareBool(ptr %e, ptr %ep, i32 2)
  %cerr = icmp slt i32 %cur, 0
  br i1 %cerr, label %failsig, label %current
current:
  %iscur = icmp eq i32 %cur, 1
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %v = call ptr @get(ptr %n, i64 %ov)
  %novalue = icmp eq ptr %v, %none
  %go = and i1 %iscur, %novalue
  br i1 %go, label %find, label %unknownsig
find:
  %k0 = call ptr @item(ptr %sig, i64 0)
  %hitp = call ptr @PyDict_GetItemWithError(ptr %fast, ptr %k0)
  %noentry = icmp eq ptr %hitp, null
  br i1 %noentry, label %missed, label %hit
missed:
  %merr = call i1 @failed()
  br i1 %merr, label %failsig, label %unknownsig
hit:
  call void @Py_IncRef(ptr %hitp)
  br i1 %first, label %announce, label %run
announce:
  %said = call i1 @lz_announce(ptr %ctx, ptr %root, i64 %count)
  br i1 %said, label %run, label %failentry
run:
  %leaf = call ptr @item(ptr %hitp, i64 1)
  %lv = call ptr @item(ptr %sig, i64 1)
  %dv = call ptr @lz_direct(ptr %ctx, ptr %hitp, ptr %lv)
  %nodv = icmp eq ptr %dv, null
  br i1 %nodv, label %notdirect, label %evaluate
notdirect:
  %derr = call i1 @failed()
  br i1 %derr, label %failentry, label %closure
closure:
  %runfn = call ptr @item(ptr %hitp, i64 0)
  %cv = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %runfn, ptr %lv, ptr null)
  %nocv = icmp eq ptr %cv, null
  br i1 %nocv, label %failentry, label %evaluate
evaluate:
  %value = phi ptr [%dv, %run], [%cv, %closure]
  %st = call i32 @lz_evaluated(ptr %ctx, ptr %n, ptr %value, ptr %leaf, i1 %quiet)
  call void @Py_DecRef(ptr %hitp)
  call void @Py_DecRef(ptr %sig)
  %everr = icmp slt i32 %st, 0
  br i1 %everr, label %error, label %ran
ran:
  ret i32 1
unknownsig:
  call void @Py_DecRef(ptr %sig)
  br label %unknown
unknown:
  ret i32 0
failentry:
  call void @Py_DecRef(ptr %hitp)
  br label %failsig
failsig:
  call void @Py_DecRef(ptr %sig)
  br label %error
error:
  ret i32 -1
}

; ---- _steps.quick's order and loop for (root, fast): None when the walk does not
; apply (_order's None), the number of steps run when all ran, -(1 + that number) when
; one's program was not known; NULL on error
define internal ptr @lz_steps(ptr %ctx, ptr %root, ptr %fast, i1 %announce) {
entry:
  %plan = alloca [$FUSE_PLAN$ x i64]
  %order = alloca %vec
  store %vec zeroinitializer, ptr %order
  %ranp = alloca i64
  store i64 0, ptr %ranp
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %views = call ptr @w(ptr %ctx, i64 $C_VIEWS$)
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %st = call i32 @lz_order(ptr %ctx, ptr %root, ptr %order)
  switch i32 %st, label %fail [i32 0, label %notapplicable
                               i32 1, label %run]
notapplicable:
  call void @vfree(ptr %order)
  call void @Py_IncRef(ptr %none)
  ret ptr %none
run:
  %np = getelementptr %vec, ptr %order, i32 0, i32 1
  %count = load i64, ptr %np
  %data = load ptr, ptr %order
  ; fused regions (backend/fuse.ll), planned a window of C_FUSE_MAX nodes at a time (a
  ; node that a later window reads is held by that window's sources: its region's root)
  %fmax = call i64 @wi(ptr %ctx, i64 $C_FUSE_MAX$)
  %planning = icmp sgt i64 %fmax, 0
  br label %loop
loop:
  %i = phi i64 [0, %run], [%i1, %next]
  %base = phi i64 [0, %run], [%b, %next]     ; the planned window: its start, its end
  %wend = phi i64 [0, %run], [%we, %next]
  %fused = phi i1 [0, %run], [%fu, %next]
  %more = icmp slt i64 %i, %count
  br i1 %more, label %window, label %done
window:
  %past = icmp sge i64 %i, %wend
  %replan = and i1 %past, %planning
  br i1 %replan, label %planit, label %body
planit:
  %left = sub i64 %count, %i
  %short = icmp slt i64 %left, %fmax
  %wcount = select i1 %short, i64 %left, i64 %fmax
  %wdata = getelementptr ptr, ptr %data, i64 %i
  %pst = call i32 @lz_fuse_plan(ptr %ctx, ptr %wdata, i64 %wcount, ptr %root, ptr %plan)
  %perr = icmp slt i32 %pst, 0
  br i1 %perr, label %fail, label %planned
planned:
  %some = icmp sgt i32 %pst, 0
  %wend1 = add i64 %i, %wcount
  br label %body
body:
  %b = phi i64 [%base, %window], [%i, %planned]
  %we = phi i64 [%wend, %window], [%wend1, %planned]
  %fu = phi i1 [%fused, %window], [%some, %planned]
  ; taken from the order (no value outlives its readers)
  %slot = getelementptr ptr, ptr %data, i64 %i
  %n = load ptr, ptr %slot
  store ptr null, ptr %slot
  br i1 %fu, label %fusedkind, label %plainnode
fusedkind:
  %rel = sub i64 %i, %b  ; (its position in the window's plan)
  %kind = call i64 @pl(ptr %plan, i64 $P_KIND$, i64 %rel)
  switch i64 %kind, label %plainnode [i64 1, label %keep
                                      i64 2, label %region]
keep:
  ; a fused node stays held by the order until the end: its region reads it
  store ptr %n, ptr %slot
  br label %next
region:
  %ranr = load i64, ptr %ranp
  %none_ranr = icmp eq i64 %ranr, 0
  %firstr = and i1 %none_ranr, %announce
  br i1 %firstr, label %announcer, label %runregion
announcer:
  %ann = call i1 @lz_announce(ptr %ctx, ptr %root, i64 %count)
  br i1 %ann, label %runregion, label %failnode
runregion:
  %rr = call i32 @lz_region(ptr %ctx, ptr %plan, i64 %rel)
  %rerr = icmp slt i32 %rr, 0
  br i1 %rerr, label %failnode, label %regionran
regionran:
  %rstop = icmp eq i32 %rr, 0
  br i1 %rstop, label %stopped, label %regioncounted
regioncounted:
  %rn = sext i32 %rr to i64
  %ranr1 = add i64 %ranr, %rn
  store i64 %ranr1, ptr %ranp
  br label %release
plainnode:
  %op = call ptr @get(ptr %n, i64 %oo)
  %v = call i32 @PySet_Contains(ptr %views, ptr %op)
  %verr = icmp slt i32 %v, 0
  br i1 %verr, label %failnode, label %viewtest
viewtest:
  %isview = icmp eq i32 %v, 1
  %notroot = icmp ne ptr %n, %root
  %skip = and i1 %isview, %notroot
  br i1 %skip, label %release, label %step
step:
  %ran = load i64, ptr %ranp
  %none_ran = icmp eq i64 %ran, 0
  %first = and i1 %none_ran, %announce
  %r = call i32 @lz_step(ptr %ctx, ptr %n, ptr %fast, i1 %first, ptr %root, i64 %count)
  switch i32 %r, label %failnode [i32 0, label %reduce
                                  i32 1, label %counted]
reduce:
  ; no one-op program: a reduction runs on the building blocks (backend/reduce.ll)
  %rd = call i32 @lz_reduce_step(ptr %ctx, ptr %n, i1 %first, ptr %root, i64 %count)
  switch i32 %rd, label %failnode [i32 0, label %stopped
                                   i32 1, label %counted]
counted:
  %ran1 = add i64 %ran, 1
  store i64 %ran1, ptr %ranp
  br label %release
release:
  call void @Py_DecRef(ptr %n)
  br label %next
next:
  %i1 = add i64 %i, 1
  br label %loop
done:
  call void @vfree(ptr %order)
  %total = load i64, ptr %ranp
  %res = call ptr @PyLong_FromLongLong(i64 %total)
  ret ptr %res
stopped:
  call void @Py_DecRef(ptr %n)
  call void @vfree(ptr %order)
  %sofar = load i64, ptr %ranp
  %neg = sub i64 -1, %sofar
  %res2 = call ptr @PyLong_FromLongLong(i64 %neg)
  ret ptr %res2
failnode:
  call void @Py_DecRef(ptr %n)
  br label %fail
fail:
  call void @vfree(ptr %order)
  ret ptr null
}

; ---- _steps._order(root) as a list, or None: new reference, NULL on error
define internal ptr @lz_order_list(ptr %ctx, ptr %root) {
entry:
  %order = alloca %vec
  store %vec zeroinitializer, ptr %order
  %st = call i32 @lz_order(ptr %ctx, ptr %root, ptr %order)
  switch i32 %st, label %fail [i32 0, label %none
                               i32 1, label %list]
none:
  call void @vfree(ptr %order)
  %nv = call ptr @w(ptr %ctx, i64 $C_NONE$)
  call void @Py_IncRef(ptr %nv)
  ret ptr %nv
list:
  %np = getelementptr %vec, ptr %order, i32 0, i32 1
  %n = load i64, ptr %np
  %l = call ptr @PyList_New(i64 %n)
  %nol = icmp eq ptr %l, null
  br i1 %nol, label %fail, label %fill
fill:
  %data = load ptr, ptr %order
  br label %loop
loop:
  %i = phi i64 [0, %fill], [%i1, %body]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %slot = getelementptr ptr, ptr %data, i64 %i
  %x = load ptr, ptr %slot
  store ptr null, ptr %slot
  %r = call i32 @PyList_SetItem(ptr %l, i64 %i, ptr %x)  ; (steals the order's reference)
  %i1 = add i64 %i, 1
  br label %loop
done:
  call void @vfree(ptr %order)
  ret ptr %l
fail:
  call void @vfree(ptr %order)
  ret ptr null
}

; ---- the module function's entry for steps: (root, fast), a Node and a dict, and a
; third argument when the evaluation's first step ran already (not announced again)
define internal ptr @lz_steps_entry(ptr %ctx, ptr %args, i64 %nargs) {
entry:
  %two = icmp eq i64 %nargs, 2
  %three = icmp eq i64 %nargs, 3
  %count = or i1 %two, %three
  br i1 %count, label %types, label %other
types:
  %root = load ptr, ptr %args
  %fp = getelementptr ptr, ptr %args, i64 1
  %fast = load ptr, ptr %fp
  %rt = call ptr @type(ptr %root)
  %nt = call ptr @w(ptr %ctx, i64 $C_NODE_T$)
  %ft = call ptr @type(ptr %fast)
  %dt = call ptr @w(ptr %ctx, i64 $C_DICT_T$)
  %okr = icmp eq ptr %rt, %nt
  %okf = icmp eq ptr %ft, %dt
  %ok = and i1 %okr, %okf
  br i1 %ok, label %go, label %ordered
ordered:
  ; (root, None): the order only
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %isnone = icmp eq ptr %fast, %none
  %ok2 = and i1 %okr, %isnone
  %ok3 = and i1 %ok2, %two
  br i1 %ok3, label %order, label %other
order:
  %ol = call ptr @lz_order_list(ptr %ctx, ptr %root)
  ret ptr %ol
go:
  %r = call ptr @lz_steps(ptr %ctx, ptr %root, ptr %fast, i1 %two)
  ret ptr %r
other:
  %fn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %o = call ptr @PyObject_Vectorcall(ptr %fn, ptr %args, i64 %nargs, ptr null)
  ret ptr %o
}
