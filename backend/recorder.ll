; The recording unit's IR: backend/recorder.py fills in each name between dollar signs (context words,
; object offsets, the stub count...) and appends one stub per method.
declare void @Py_IncRef(ptr)
declare void @Py_DecRef(ptr)
declare ptr @PyType_GenericAlloc(ptr, i64)
declare ptr @PyTuple_Pack(i64, ...)
declare ptr @PyTuple_New(i64)
declare ptr @PyDict_GetItemWithError(ptr, ptr)
declare i32 @PyObject_RichCompareBool(ptr, ptr, i32)
declare i64 @PyLong_AsLongLongAndOverflow(ptr, ptr)
declare ptr @PyWeakref_NewRef(ptr, ptr)
declare ptr @PyObject_CallFunctionObjArgs(ptr, ...)
declare ptr @PyObject_Vectorcall(ptr, ptr, i64, ptr)
declare ptr @PyErr_Occurred()
declare void @PyErr_Clear()
declare void @PyObject_GC_UnTrack(ptr)
declare ptr @PyLong_FromLongLong(i64)
declare ptr @PyList_New(i64)
declare i64 @PyDict_Size(ptr)
declare i32 @PyList_Append(ptr, ptr)
declare ptr @PySequence_List(ptr)
declare i64 @PySet_Size(ptr)
declare ptr @PyList_AsTuple(ptr)
declare i32 @PyErr_ExceptionMatches(ptr)
declare i32 @PyObject_IsTrue(ptr)
declare ptr @PyBool_FromLong(i64)
declare ptr @PyNumber_Add(ptr, ptr)
declare i32 @PyObject_SetAttr(ptr, ptr, ptr)
declare i32 @PySet_Clear(ptr)
declare i64 @llvm.smin.i64(i64, i64)
declare {i64, i1} @llvm.smul.with.overflow.i64(i64, i64)

@lazyarray_rec_ctx = dso_local global [$STUBS$ x ptr] zeroinitializer

; ---- reading contexts and objects
define internal ptr @w(ptr %ctx, i64 %i) {
  %p = getelementptr i64, ptr %ctx, i64 %i
  %v = load ptr, ptr %p
  ret ptr %v
}
define internal i64 @wi(ptr %ctx, i64 %i) {
  %p = getelementptr i64, ptr %ctx, i64 %i
  %v = load i64, ptr %p
  ret i64 %v
}
define internal ptr @get(ptr %o, i64 %off) {
  %p = getelementptr i8, ptr %o, i64 %off
  %v = load ptr, ptr %p
  ret ptr %v
}
define internal void @set(ptr %o, i64 %off, ptr %v) {
  %p = getelementptr i8, ptr %o, i64 %off
  store ptr %v, ptr %p
  ret void
}
define internal ptr @type(ptr %o) {
  %t = call ptr @get(ptr %o, i64 $OB_TYPE$)
  ret ptr %t
}
define internal ptr @item(ptr %t, i64 %i) {
  %off = mul i64 %i, 8
  %o = add i64 %off, $TUPLE_ITEMS$
  %v = call ptr @get(ptr %t, i64 %o)
  ret ptr %v
}
define internal i64 @size(ptr %t) {
  %p = getelementptr i8, ptr %t, i64 16
  %v = load i64, ptr %p
  ret i64 %v
}
define internal void @set_size(ptr %t, i64 %n) {
  %p = getelementptr i8, ptr %t, i64 16
  store i64 %n, ptr %p
  ret void
}
; a 3-tuple (a signature's shape): 1, else 0
define internal i1 @triple(ptr %ctx, ptr %s) {
  %t = call ptr @type(ptr %s)
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %a = icmp eq ptr %t, %tt
  br i1 %a, label %sz, label %no
sz:
  %n = call i64 @size(ptr %s)
  %b = icmp eq i64 %n, 3
  ret i1 %b
no:
  ret i1 0
}

; ---- a Node: srcs and sig are stolen, the rest borrowed; NULL on failure
define internal ptr @lz_node(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %srcs, ptr %value, ptr %sig) {
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %n = call ptr @lz_node_arg(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %srcs, ptr %none, ptr %value, ptr %sig)
  ret ptr %n
}
define internal ptr @lz_node_arg(ptr %ctx, ptr %op, ptr %dtype, ptr %shape, ptr %srcs, ptr %arg, ptr %value, ptr %sig) {
  %nt = call ptr @w(ptr %ctx, i64 $C_NODE_T$)
  %node = call ptr @PyType_GenericAlloc(ptr %nt, i64 0)
  %bad = icmp eq ptr %node, null
  br i1 %bad, label %fail, label %ok
fail:
  call void @Py_DecRef(ptr %srcs)
  call void @Py_DecRef(ptr %sig)
  ret ptr null
ok:
  call void @Py_IncRef(ptr %op)
  call void @Py_IncRef(ptr %dtype)
  call void @Py_IncRef(ptr %shape)
  call void @Py_IncRef(ptr %arg)
  call void @Py_IncRef(ptr %value)
  %o1 = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  call void @set(ptr %node, i64 %o1, ptr %op)
  %o2 = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  call void @set(ptr %node, i64 %o2, ptr %dtype)
  %o3 = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  call void @set(ptr %node, i64 %o3, ptr %shape)
  %o4 = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  call void @set(ptr %node, i64 %o4, ptr %srcs)
  %o5 = call i64 @wi(ptr %ctx, i64 $C_N_ARG$)
  call void @set(ptr %node, i64 %o5, ptr %arg)
  %o6 = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  call void @set(ptr %node, i64 %o6, ptr %value)
  %o7 = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  call void @set(ptr %node, i64 %o7, ptr %sig)
  ; a node is in no reference cycle (it reads older nodes and values only): the
  ; collector need not traverse it (a long recorded graph's collections cost more than
  ; its recording)
  call void @PyObject_GC_UnTrack(ptr %node)
  ret ptr %node
}

; ---- the Array of a node (stolen), remembered as recorded; NULL on failure
define internal ptr @lz_wrap(ptr %ctx, ptr %node) {
  %arr = call ptr @lz_bare(ptr %ctx, ptr %node)
  %bad = icmp eq ptr %arr, null
  br i1 %bad, label %fail, label %ok
fail:
  ret ptr null
ok:
  %ref = call ptr @PyWeakref_NewRef(ptr %arr, ptr null)
  %bad2 = icmp eq ptr %ref, null
  br i1 %bad2, label %drop, label %tell
tell:
  %app = call ptr @w(ptr %ctx, i64 $C_APPEND$)
  ; (a vector call: CallFunctionObjArgs' argument list cost 300 instructions an op)
  %args = alloca ptr
  store ptr %ref, ptr %args
  %r = call ptr @PyObject_Vectorcall(ptr %app, ptr %args, i64 1, ptr null)
  call void @Py_DecRef(ptr %ref)
  %bad3 = icmp eq ptr %r, null
  br i1 %bad3, label %drop, label %done
done:
  call void @Py_DecRef(ptr %r)
  ret ptr %arr
drop:
  call void @Py_DecRef(ptr %arr)
  ret ptr null
}

; ---- the Array of a node (stolen), as Array._new makes it for a node with a value (not
; remembered); NULL on failure
define internal ptr @lz_bare(ptr %ctx, ptr %node) {
  %at = call ptr @w(ptr %ctx, i64 $C_ARRAY_T$)
  %arr = call ptr @PyType_GenericAlloc(ptr %at, i64 0)
  %bad = icmp eq ptr %arr, null
  br i1 %bad, label %fail, label %ok
fail:
  call void @Py_DecRef(ptr %node)
  ret ptr null
ok:
  %o1 = call i64 @wi(ptr %ctx, i64 $C_A_NODE$)
  call void @set(ptr %arr, i64 %o1, ptr %node)
  ret ptr %arr
}

; ---- the dtype table's entry of %d, or NULL
define internal ptr @lz_entry(ptr %ctx, ptr %d) {
entry:
  %tab = call ptr @w(ptr %ctx, i64 $C_DTYPES$)
  %n = call i64 @wi(ptr %ctx, i64 $C_N_DTYPES$)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %next]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %none
body:
  %at = mul i64 %i, $D_WORDS$
  %e = getelementptr i64, ptr %tab, i64 %at
  %dp = load ptr, ptr %e
  %hit = icmp eq ptr %dp, %d
  br i1 %hit, label %found, label %next
next:
  %i1 = add i64 %i, 1
  br label %loop
found:
  ret ptr %e
none:
  ret ptr null
}

; ---- a scalar leaf's signature (its dtype's leaf id, (%v,), NEVER) for the dtype
; entry %e: new reference, NULL on error.  Remembered by the identity of %v and %e
; (direct-mapped; an entry holds %v and the signature, so no address is reused while it is
; cached) until the ids are cleared: a literal in a loop (`v * 0.75`) is the same float
; object on every call, and its signature, a tuple of immutable values, serves every node
; of it (two tuples fewer made and freed an op)
@lz_scalarcache = internal global [$SCALARCACHE$ x [4 x ptr]] zeroinitializer

define internal ptr @lz_scalar_sig(ptr %ctx, ptr %v, ptr %e) {
entry:
  %a = ptrtoint ptr %v to i64
  %h2 = call i64 @lz_mix(i64 %a, ptr %e)
  %slot = call i64 @lz_slot(i64 %h2, i64 $SCALARCACHE_MASK$)
  %c = getelementptr [$SCALARCACHE$ x [4 x ptr]], ptr @lz_scalarcache, i64 0, i64 %slot
  %c1 = getelementptr ptr, ptr %c, i64 1
  %c2 = getelementptr ptr, ptr %c, i64 2
  %c3 = getelementptr ptr, ptr %c, i64 3
  %cv = load ptr, ptr %c
  %ce = load ptr, ptr %c1
  %cg = load i64, ptr %c2
  %gen = call i64 @lz_ids_gen(ptr %ctx)
  %mv = icmp eq ptr %cv, %v
  %me = icmp eq ptr %ce, %e
  %mg = icmp eq i64 %cg, %gen
  %mve = and i1 %mv, %me
  %hit = and i1 %mve, %mg
  br i1 %hit, label %cached, label %make
cached:
  %cs = load ptr, ptr %c3
  call void @Py_IncRef(ptr %cs)
  ret ptr %cs
make:
  %leaves = call ptr (i64, ...) @PyTuple_Pack(i64 1, ptr %v)
  %nol = icmp eq ptr %leaves, null
  br i1 %nol, label %no, label %sig
sig:
  %sp = getelementptr i64, ptr %e, i64 1
  %sid = load ptr, ptr %sp
  %never = call ptr @w(ptr %ctx, i64 $C_NEVER$)
  %s = call ptr (i64, ...) @PyTuple_Pack(i64 3, ptr %sid, ptr %leaves, ptr %never)
  call void @Py_DecRef(ptr %leaves)
  %nos = icmp eq ptr %s, null
  br i1 %nos, label %no, label %keep
keep:
  ; (the entry replaced first, then the old one released: freeing a float and a tuple
  ; of ints runs no Python code)
  %os = load ptr, ptr %c3
  call void @Py_IncRef(ptr %v)
  call void @Py_IncRef(ptr %s)
  store ptr %v, ptr %c
  store ptr %e, ptr %c1
  store i64 %gen, ptr %c2
  store ptr %s, ptr %c3
  %had = icmp ne ptr %cv, null
  br i1 %had, label %release, label %done
release:
  call void @Py_DecRef(ptr %cv)
  call void @Py_DecRef(ptr %os)
  br label %done
done:
  ret ptr %s
no:
  ret ptr null
}

; ---- a scalar leaf for Python float or int %v beside an array of dtype %d, as
; _elementwise._scalar_fast makes it; NULL when it does not (an error only if set)
define internal ptr @lz_scalar(ptr %ctx, ptr %v, ptr %d) {
entry:
  %ok = alloca i1
  %e = call ptr @lz_entry(ptr %ctx, ptr %d)
  %noe = icmp eq ptr %e, null
  br i1 %noe, label %no, label %have
have:
  %fp = getelementptr i64, ptr %e, i64 2
  %flags = load i64, ptr %fp
  %fl = and i64 %flags, $FLOATING$
  %isfl = icmp ne i64 %fl, 0
  %t = call ptr @type(ptr %v)
  %ft = call ptr @w(ptr %ctx, i64 $C_FLOAT_T$)
  %isf = icmp eq ptr %t, %ft
  br i1 %isf, label %float, label %int
float:
  br i1 %isfl, label %make, label %no
int:
  ; (int64's minimum takes the Python function, which accepts it)
  %val = call i64 @lz_int(ptr %ctx, ptr %v, ptr %ok)
  %isint = load i1, ptr %ok
  br i1 %isint, label %range, label %no
range:
  br i1 %isfl, label %exact, label %bounded
exact:
  %x = call i64 @wi(ptr %ctx, i64 $C_EXACT$)
  %nx = sub i64 0, %x
  br label %check
bounded:
  %bd = and i64 %flags, $BOUNDED$
  %isb = icmp ne i64 %bd, 0
  br i1 %isb, label %bounds, label %no
bounds:
  %lp = getelementptr i64, ptr %e, i64 3
  %lo0 = load i64, ptr %lp
  %hp = getelementptr i64, ptr %e, i64 4
  %hi0 = load i64, ptr %hp
  br label %check
check:
  %lo = phi i64 [%nx, %exact], [%lo0, %bounds]
  %hi = phi i64 [%x, %exact], [%hi0, %bounds]
  %below = icmp slt i64 %val, %lo
  %above = icmp sgt i64 %val, %hi
  %out = or i1 %below, %above
  br i1 %out, label %no, label %make
make:
  %s = call ptr @lz_scalar_sig(ptr %ctx, ptr %v, ptr %e)
  %nos = icmp eq ptr %s, null
  br i1 %nos, label %no, label %node
node:
  %empty = call ptr @w(ptr %ctx, i64 $C_EMPTY$)
  call void @Py_IncRef(ptr %empty)
  %sop = call ptr @w(ptr %ctx, i64 $C_SCALAR_OP$)
  %n = call ptr @lz_node(ptr %ctx, ptr %sop, ptr %d, ptr %empty, ptr %empty, ptr %v, ptr %s)
  ret ptr %n
no:
  ret ptr null
}

; ---- the structure id of %key in the op's table (ir.new_id on a miss): new reference
define internal ptr @lz_id(ptr %ctx, ptr %key) {
  %ids = call ptr @w(ptr %ctx, i64 $C_IDS$)
  %i = call ptr @PyDict_GetItemWithError(ptr %ids, ptr %key)
  %miss = icmp eq ptr %i, null
  br i1 %miss, label %miss_, label %hit
hit:
  call void @Py_IncRef(ptr %i)
  ret ptr %i
miss_:
  %err = call ptr @PyErr_Occurred()
  %haserr = icmp ne ptr %err, null
  br i1 %haserr, label %fail, label %new
new:
  ; ir.new_id: the next id, in the table and counted in ir.TABLE_IDS (towards the limit
  ; of ir._IDS); the Python function when the limit is reached (it clears)
  %all = call ptr @w(ptr %ctx, i64 $C_STRUCT_IDS$)
  %size = call i64 @PyDict_Size(ptr %all)
  %cp = call ptr @w(ptr %ctx, i64 $C_TABLE_IDS$)
  %made = load i64, ptr %cp
  %total = add i64 %size, %made
  %max = call i64 @wi(ptr %ctx, i64 $C_MAX_IDS$)
  %full = icmp sge i64 %total, %max
  br i1 %full, label %python, label %next
python:
  %fn = call ptr @w(ptr %ctx, i64 $C_NEW_ID$)
  %r = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %ids, ptr %key, ptr null)
  ret ptr %r
next:
  %counter = call ptr @w(ptr %ctx, i64 $C_NEXT_ID$)
  %ni = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %counter, ptr null)
  %noi = icmp eq ptr %ni, null
  br i1 %noi, label %fail, label %put
put:
  %p1 = call i32 @PyDict_SetItem(ptr %ids, ptr %key, ptr %ni)
  %e1 = icmp slt i32 %p1, 0
  br i1 %e1, label %faili, label %done
done:
  %made1 = add i64 %made, 1
  store i64 %made1, ptr %cp
  ret ptr %ni
faili:
  call void @Py_DecRef(ptr %ni)
  br label %fail
fail:
  ret ptr null
}

; ---- how many times ir.clear_ids cleared the ids (TABLE_IDS[1]): it names every
; structure anew, so what is remembered natively serves within one count only
define internal i64 @lz_ids_gen(ptr %ctx) {
  %tab = call ptr @w(ptr %ctx, i64 $C_TABLE_IDS$)
  %gp = getelementptr i64, ptr %tab, i64 1
  %gen = load i64, ptr %gp
  ret i64 %gen
}

; ---- the entry for hash %h of a direct-mapped cache of %mask + 1 entries (the
; structure-id caches, lz_cached_id's and lz_sid's; lz_scalar_sig's; lz_fuse_slot's)
; a hash %h with the address %p mixed in (the direct-mapped caches' keys of addresses)
define internal i64 @lz_mix(i64 %h, ptr %p) {
  %m = mul i64 %h, -7046029254386353131
  %a = ptrtoint ptr %p to i64
  %x = xor i64 %m, %a
  ret i64 %x
}

define internal i64 @lz_slot(i64 %h, i64 %mask) {
  %m = mul i64 %h, -7046029254386353131
  %s = lshr i64 %m, 40
  %slot = and i64 %s, %mask
  ret i64 %slot
}

; ---- the structure ids of the elementwise fast paths, remembered by the identity of
; what names them: (the op's table, the first source's id or NULL, the second's id,
; the leaves' positions or NULL) -> the id that table gives the key (%k2 alone for one
; source; (%k1, %k2) or (%k1, (%k2, %where)) for two).  Direct-mapped; an entry holds
; its objects (an address is not reused while it is cached) and serves until the ids
; are cleared.
; Saves the key tuples, their hashes and the dict's comparisons: about 900 of 5,400
; instructions of a recorded `a * 1.5` (callgrind).  The GIL is held throughout.
@lz_idcache = internal global [$IDCACHE$ x [6 x ptr]] zeroinitializer

define internal ptr @lz_cached_id(ptr %ctx, ptr %k1, ptr %k2, ptr %where) {
entry:
  %ids = call ptr @w(ptr %ctx, i64 $C_IDS$)
  %a = ptrtoint ptr %ids to i64
  %h2 = call i64 @lz_mix(i64 %a, ptr %k1)
  %h4 = call i64 @lz_mix(i64 %h2, ptr %k2)
  %h6 = call i64 @lz_mix(i64 %h4, ptr %where)
  %slot = call i64 @lz_slot(i64 %h6, i64 $IDCACHE_MASK$)
  %e = getelementptr [$IDCACHE$ x [6 x ptr]], ptr @lz_idcache, i64 0, i64 %slot
  %e5 = getelementptr ptr, ptr %e, i64 5
  %gen = call i64 @lz_ids_gen(ptr %ctx)
  %tg = load i64, ptr %e5
  %mg = icmp eq i64 %tg, %gen
  %e1 = getelementptr ptr, ptr %e, i64 1
  %e2 = getelementptr ptr, ptr %e, i64 2
  %e3 = getelementptr ptr, ptr %e, i64 3
  %e4 = getelementptr ptr, ptr %e, i64 4
  %t0 = load ptr, ptr %e
  %t1 = load ptr, ptr %e1
  %t2 = load ptr, ptr %e2
  %t3 = load ptr, ptr %e3
  %m0 = icmp eq ptr %t0, %ids
  %m1 = icmp eq ptr %t1, %k1
  %m2 = icmp eq ptr %t2, %k2
  %m3 = icmp eq ptr %t3, %where
  %m01 = and i1 %m0, %m1
  %m23 = and i1 %m2, %m3
  %m0123 = and i1 %m01, %m23
  %m = and i1 %m0123, %mg
  br i1 %m, label %hit, label %miss
hit:
  %hid = load ptr, ptr %e4
  call void @Py_IncRef(ptr %hid)
  ret ptr %hid
miss:
  %haswhere = icmp ne ptr %where, null
  br i1 %haswhere, label %pair, label %plain
pair:
  %kw = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %k2, ptr %where)
  br label %second
plain:
  call void @Py_IncRef(ptr %k2)
  br label %second
second:
  %kk = phi ptr [%kw, %pair], [%k2, %plain]
  %nokk = icmp eq ptr %kk, null
  br i1 %nokk, label %fail, label %first
first:
  %one = icmp eq ptr %k1, null
  br i1 %one, label %lookup, label %two
two:
  %kt = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %k1, ptr %kk)
  call void @Py_DecRef(ptr %kk)
  %nokt = icmp eq ptr %kt, null
  br i1 %nokt, label %fail, label %lookup
lookup:
  %key = phi ptr [%kk, %first], [%kt, %two]
  %i = call ptr @lz_id(ptr %ctx, ptr %key)
  call void @Py_DecRef(ptr %key)
  %noi = icmp eq ptr %i, null
  br i1 %noi, label %fail, label %remember
remember:
  ; the new entry is stored before the old one is let go (its deallocation sees a
  ; consistent table); the old one is read again (lz_id may run Python code, and another
  ; thread may have replaced it meanwhile)
  %o0 = load ptr, ptr %e
  %o1 = load ptr, ptr %e1
  %o2 = load ptr, ptr %e2
  %o3 = load ptr, ptr %e3
  %o4 = load ptr, ptr %e4
  call void @Py_IncRef(ptr %ids)
  call void @Py_IncRef(ptr %k1)
  call void @Py_IncRef(ptr %k2)
  call void @Py_IncRef(ptr %where)
  call void @Py_IncRef(ptr %i)
  store ptr %ids, ptr %e
  store ptr %k1, ptr %e1
  store ptr %k2, ptr %e2
  store ptr %where, ptr %e3
  store ptr %i, ptr %e4
  %gen2 = call i64 @lz_ids_gen(ptr %ctx)
  store i64 %gen2, ptr %e5
  call void @Py_DecRef(ptr %o0)
  call void @Py_DecRef(ptr %o1)
  call void @Py_DecRef(ptr %o2)
  call void @Py_DecRef(ptr %o3)
  call void @Py_DecRef(ptr %o4)
  ret ptr %i
fail:
  ret ptr null
}

; ---- a signature's epoch: %e, or ir.EPOCH when %e is NEVER (borrowed; NULL on error)
define internal ptr @lz_epoch(ptr %ctx, ptr %e) {
  %never = call ptr @w(ptr %ctx, i64 $C_NEVER$)
  %ne = call i32 @PyObject_RichCompareBool(ptr %e, ptr %never, i32 3)
  %is = icmp eq i32 %ne, 1
  br i1 %is, label %keep, label %other
keep:
  ret ptr %e
other:
  %err = icmp slt i32 %ne, 0
  br i1 %err, label %fail, label %epoch
epoch:
  %d = call ptr @w(ptr %ctx, i64 $C_IR_DICT$)
  %k = call ptr @w(ptr %ctx, i64 $C_EPOCH_KEY$)
  %ep = call ptr @PyDict_GetItemWithError(ptr %d, ptr %k)
  ret ptr %ep
fail:
  ret ptr null
}

; ---- the signature of a one-source node (ir.derived_signature): new reference
define internal ptr @lz_sig1(ptr %ctx, ptr %s) {
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %isnone = icmp eq ptr %s, %none
  br i1 %isnone, label %nosig, label %check
check:
  %ok = call i1 @triple(ptr %ctx, ptr %s)
  br i1 %ok, label %go, label %nosig
go:
  %k = call ptr @item(ptr %s, i64 0)
  %lv = call ptr @item(ptr %s, i64 1)
  %e = call ptr @item(ptr %s, i64 2)
  %i = call ptr @lz_cached_id(ptr %ctx, ptr null, ptr %k, ptr null)
  %noi = icmp eq ptr %i, null
  br i1 %noi, label %fail, label %haveid
haveid:
  %ep = call ptr @lz_epoch(ptr %ctx, ptr %e)
  %noep = icmp eq ptr %ep, null
  br i1 %noep, label %faili, label %pack
pack:
  %sig = call ptr (i64, ...) @PyTuple_Pack(i64 3, ptr %i, ptr %lv, ptr %ep)
  call void @Py_DecRef(ptr %i)
  ret ptr %sig
faili:
  call void @Py_DecRef(ptr %i)
  br label %fail
fail:
  ret ptr null
nosig:
  call void @Py_IncRef(ptr %none)
  ret ptr %none
}

; ---- ir.merge_leaves(%lv, %more): 1 with new references in %out (leaves, where),
; 0 past MAX_LEAVES (no signature), -1 on error.  The same leaves and positions as the
; Python function, and the same tuple objects where it returns one it was given (its
; shortcuts are cases of the general rule): one leaf to merge (a scalar, the
; commonest) is looked up among a few words; the rest is the general rule.
define internal i32 @lz_merge(ptr %ctx, ptr %lv, ptr %more, ptr %out) {
entry:
  %n = call i64 @size(ptr %lv)
  %k = call i64 @size(ptr %more)
  %where = call ptr @w(ptr %ctx, i64 $C_WHERE$)
  %one = icmp eq i64 %k, 1
  br i1 %one, label %single, label %general
single:
  %m = call ptr @item(ptr %more, i64 0)
  br label %scan
scan:
  %i = phi i64 [0, %single], [%i1, %next]
  %in = icmp slt i64 %i, %n
  br i1 %in, label %look, label %notfound
look:
  %x = call ptr @item(ptr %lv, i64 %i)
  %same = icmp eq ptr %x, %m
  br i1 %same, label %found, label %next
next:
  %i1 = add i64 %i, 1
  br label %scan
found:
  %wp = getelementptr ptr, ptr %where, i64 %i
  %wh = load ptr, ptr %wp
  call void @Py_IncRef(ptr %lv)
  call void @Py_IncRef(ptr %wh)
  store ptr %lv, ptr %out
  %o1 = getelementptr ptr, ptr %out, i64 1
  store ptr %wh, ptr %o1
  ret i32 1
notfound:
  %max = call i64 @wi(ptr %ctx, i64 $C_MAX_LEAVES$)
  %full = icmp sge i64 %n, %max
  br i1 %full, label %toomany, label %grow
grow:
  %n1 = add i64 %n, 1
  %t = call ptr @PyTuple_New(i64 %n1)
  %not = icmp eq ptr %t, null
  br i1 %not, label %fail, label %copy
copy:
  %j = phi i64 [0, %grow], [%j1, %copy1]
  %cin = icmp slt i64 %j, %n
  br i1 %cin, label %copy1, label %last
copy1:
  %y = call ptr @item(ptr %lv, i64 %j)
  call void @Py_IncRef(ptr %y)
  %jo = mul i64 %j, 8
  %jo1 = add i64 %jo, $TUPLE_ITEMS$
  call void @set(ptr %t, i64 %jo1, ptr %y)
  %j1 = add i64 %j, 1
  br label %copy
last:
  call void @Py_IncRef(ptr %m)
  %no = mul i64 %n, 8
  %no1 = add i64 %no, $TUPLE_ITEMS$
  call void @set(ptr %t, i64 %no1, ptr %m)
  %wp2 = getelementptr ptr, ptr %where, i64 %n
  %wh2 = load ptr, ptr %wp2
  call void @Py_IncRef(ptr %wh2)
  store ptr %t, ptr %out
  %o2 = getelementptr ptr, ptr %out, i64 1
  store ptr %wh2, ptr %o2
  ret i32 1
general:
  ; each leaf of %more found among those before it (by identity) or appended; the
  ; merged leaves are %lv itself when %more adds none
  %nk = add i64 %n, %k
  %buf = alloca ptr, i64 %nk
  br label %gcopy
gcopy:
  %gi = phi i64 [0, %general], [%gi1, %gcopy1]
  %gin = icmp slt i64 %gi, %n
  br i1 %gin, label %gcopy1, label %gwhere
gcopy1:
  %gx = call ptr @item(ptr %lv, i64 %gi)
  %gp = getelementptr ptr, ptr %buf, i64 %gi
  store ptr %gx, ptr %gp
  %gi1 = add i64 %gi, 1
  br label %gcopy
gwhere:
  %wt = call ptr @PyTuple_New(i64 %k)
  %nowt = icmp eq ptr %wt, null
  br i1 %nowt, label %fail, label %gloop
gloop:
  %gj = phi i64 [0, %gwhere], [%gj1, %gset]
  %gm = phi i64 [%n, %gwhere], [%gm1, %gset]
  %gjn = icmp slt i64 %gj, %k
  br i1 %gjn, label %gfind, label %gdone
gfind:
  %gy = call ptr @item(ptr %more, i64 %gj)
  br label %gscan
gscan:
  %gs = phi i64 [0, %gfind], [%gs1, %gscan1]
  %gsn = icmp slt i64 %gs, %gm
  br i1 %gsn, label %gscan1, label %gadd
gscan1:
  %gq = getelementptr ptr, ptr %buf, i64 %gs
  %gz = load ptr, ptr %gq
  %gsame = icmp eq ptr %gz, %gy
  %gs1 = add i64 %gs, 1
  br i1 %gsame, label %gfound, label %gscan
gadd:
  %gmax = call i64 @wi(ptr %ctx, i64 $C_MAX_LEAVES$)
  %gfull = icmp sge i64 %gm, %gmax
  br i1 %gfull, label %gtoomany, label %gappend
gappend:
  %ga = getelementptr ptr, ptr %buf, i64 %gm
  store ptr %gy, ptr %ga
  %gma = add i64 %gm, 1
  br label %gpos
gfound:
  br label %gpos
gpos:
  %gat = phi i64 [%gm, %gappend], [%gs, %gfound]
  %gm1 = phi i64 [%gma, %gappend], [%gm, %gfound]
  %gpv = call ptr @PyLong_FromLongLong(i64 %gat)
  %nogpv = icmp eq ptr %gpv, null
  br i1 %nogpv, label %gfailwt, label %gset
gset:
  %gwo = mul i64 %gj, 8
  %gwo1 = add i64 %gwo, $TUPLE_ITEMS$
  call void @set(ptr %wt, i64 %gwo1, ptr %gpv)
  %gj1 = add i64 %gj, 1
  br label %gloop
gdone:
  ; the leaves as the Python function gives them: %lv itself when %more is a prefix of
  ; it, %more itself when %lv is a prefix of %more, else a new tuple
  %kle = icmp sle i64 %k, %n
  %plen = select i1 %kle, i64 %k, i64 %n
  br label %gpre
gpre:
  %gr = phi i64 [0, %gdone], [%gr1, %gpre1]
  %grn = icmp slt i64 %gr, %plen
  br i1 %grn, label %gpre1, label %gprefix
gpre1:
  %gra = call ptr @item(ptr %lv, i64 %gr)
  %grb = call ptr @item(ptr %more, i64 %gr)
  %grs = icmp eq ptr %gra, %grb
  %gr1 = add i64 %gr, 1
  br i1 %grs, label %gpre, label %gnew
gprefix:
  %gkeep = select i1 %kle, ptr %lv, ptr %more
  call void @Py_IncRef(ptr %gkeep)
  br label %gout
gnew:
  %gt = call ptr @PyTuple_New(i64 %gm)
  %nogt = icmp eq ptr %gt, null
  br i1 %nogt, label %gfailwt, label %gfill
gfill:
  %gf = phi i64 [0, %gnew], [%gf1, %gfill1]
  %gfn = icmp slt i64 %gf, %gm
  br i1 %gfn, label %gfill1, label %gout
gfill1:
  %gfp = getelementptr ptr, ptr %buf, i64 %gf
  %gfx = load ptr, ptr %gfp
  call void @Py_IncRef(ptr %gfx)
  %gfo = mul i64 %gf, 8
  %gfo1 = add i64 %gfo, $TUPLE_ITEMS$
  call void @set(ptr %gt, i64 %gfo1, ptr %gfx)
  %gf1 = add i64 %gf, 1
  br label %gfill
gout:
  %merged = phi ptr [%gkeep, %gprefix], [%gt, %gfill]
  store ptr %merged, ptr %out
  %o3 = getelementptr ptr, ptr %out, i64 1
  store ptr %wt, ptr %o3
  ret i32 1
gtoomany:
  call void @Py_DecRef(ptr %wt)
  br label %toomany
gfailwt:
  call void @Py_DecRef(ptr %wt)
  br label %fail
toomany:
  ret i32 0
fail:
  ret i32 -1
}

; ---- the leaves of sources whose leaves are %lv, then one more whose leaves are
; %more: 1 with new references in %out (the leaves so far, and the positions of %more's
; in them: NULL where %more is %lv), 0 past MAX_LEAVES (no signature), -1 on error
define internal i32 @lz_positions(ptr %ctx, ptr %lv, ptr %more, ptr %out) {
entry:
  %wp = getelementptr ptr, ptr %out, i64 1
  %same = icmp eq ptr %more, %lv
  br i1 %same, label %shared, label %merge
shared:
  call void @Py_IncRef(ptr %lv)
  store ptr %lv, ptr %out
  store ptr null, ptr %wp
  ret i32 1
merge:
  %st = call i32 @lz_merge(ptr %ctx, ptr %lv, ptr %more, ptr %out)
  ret i32 %st
}

; ---- ir.signature_of's step for one more source, whose leaves are %more and key %k,
; after sources whose leaves are %lv: 1 with new references in %out (the leaves so far,
; and %k as the structure part names it: itself where %more is %lv, else (%k, its
; leaves' positions)), 0 past MAX_LEAVES (no signature), -1 on error
define internal i32 @lz_join(ptr %ctx, ptr %lv, ptr %more, ptr %k, ptr %out) {
entry:
  %wp = getelementptr ptr, ptr %out, i64 1
  %st = call i32 @lz_positions(ptr %ctx, ptr %lv, ptr %more, ptr %out)
  %ok = icmp eq i32 %st, 1
  br i1 %ok, label %placed, label %done
done:
  ret i32 %st
placed:
  %mw = load ptr, ptr %wp
  %shared = icmp eq ptr %mw, null
  br i1 %shared, label %itself, label %pair
itself:
  call void @Py_IncRef(ptr %k)
  store ptr %k, ptr %wp
  ret i32 1
pair:
  %kk = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %k, ptr %mw)
  call void @Py_DecRef(ptr %mw)
  %nokk = icmp eq ptr %kk, null
  br i1 %nokk, label %fail, label %keyed
keyed:
  store ptr %kk, ptr %wp
  ret i32 1
fail:
  %ml = load ptr, ptr %out
  call void @Py_DecRef(ptr %ml)
  ret i32 -1
}

; ---- the signature of a two-source node (the inline ir.signature of the binary
; fast path): new reference
define internal ptr @lz_sig2(ptr %ctx, ptr %s1, ptr %s2) {
entry:
  %out = alloca [2 x ptr]
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %n1 = icmp eq ptr %s1, %none
  %n2 = icmp eq ptr %s2, %none
  %either = or i1 %n1, %n2
  br i1 %either, label %nosig, label %check
check:
  %ok1 = call i1 @triple(ptr %ctx, ptr %s1)
  %ok2 = call i1 @triple(ptr %ctx, ptr %s2)
  %ok = and i1 %ok1, %ok2
  br i1 %ok, label %go, label %nosig
go:
  %k1 = call ptr @item(ptr %s1, i64 0)
  %lv = call ptr @item(ptr %s1, i64 1)
  %e1 = call ptr @item(ptr %s1, i64 2)
  %k2 = call ptr @item(ptr %s2, i64 0)
  %l2 = call ptr @item(ptr %s2, i64 1)
  %e2 = call ptr @item(ptr %s2, i64 2)
  ; (lz_join's key, without its tuples: the cache names it by identity)
  %st = call i32 @lz_positions(ptr %ctx, ptr %lv, ptr %l2, ptr %out)
  switch i32 %st, label %fail [i32 0, label %nosig
                               i32 1, label %keyed]
keyed:
  %leaves = load ptr, ptr %out
  %kp = getelementptr ptr, ptr %out, i64 1
  %where = load ptr, ptr %kp
  %i = call ptr @lz_cached_id(ptr %ctx, ptr %k1, ptr %k2, ptr %where)
  call void @Py_DecRef(ptr %where)
  %noi = icmp eq ptr %i, null
  br i1 %noi, label %failleaves, label %epoch
epoch:
  %lt = call i32 @PyObject_RichCompareBool(ptr %e2, ptr %e1, i32 0)
  %lterr = icmp slt i32 %lt, 0
  br i1 %lterr, label %faili, label %pick
pick:
  %less = icmp eq i32 %lt, 1
  %e = select i1 %less, ptr %e2, ptr %e1
  %ep = call ptr @lz_epoch(ptr %ctx, ptr %e)
  %noep = icmp eq ptr %ep, null
  br i1 %noep, label %faili, label %sized
sized:
  %ln = call i64 @size(ptr %leaves)
  %nolv = icmp eq i64 %ln, 0
  br i1 %nolv, label %emptyleaves, label %pack
pack:
  %sig = call ptr (i64, ...) @PyTuple_Pack(i64 3, ptr %i, ptr %leaves, ptr %ep)
  call void @Py_DecRef(ptr %i)
  call void @Py_DecRef(ptr %leaves)
  ret ptr %sig
emptyleaves:
  call void @Py_DecRef(ptr %i)
  call void @Py_DecRef(ptr %leaves)
  br label %nosig
faili:
  call void @Py_DecRef(ptr %i)
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

; ---- the call of the Python function this replaces
define internal ptr @lz_fallback2(ptr %ctx, ptr %a, ptr %b) {
  %fn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %r = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %a, ptr %b, ptr null)
  ret ptr %r
}
define internal ptr @lz_fallback1(ptr %ctx, ptr %a) {
  %fn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %r = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %a, ptr null)
  ret ptr %r
}
; NULL with an error set: pass it on; without one: fall back
define internal i1 @failed() {
  %err = call ptr @PyErr_Occurred()
  %e = icmp ne ptr %err, null
  ret i1 %e
}

; ---- a binary op on %x1, %x2 (the fallback gets %fa, %fb: the method's own order).
; The nodes read from the arrays are held from the moment they are read: a call below
; may run Python code (a Dim's __eq__, a collection's finalizer, a function of ir), and
; meanwhile another thread may rebind an array (a write) or evaluate a node (its
; signature replaced)
define internal ptr @lz_binary(ptr %ctx, ptr %x1, ptr %x2, ptr %fa, ptr %fb) {
entry:
  %bout = alloca [3 x ptr]
  %at = call ptr @w(ptr %ctx, i64 $C_ARRAY_T$)
  %an = call i64 @wi(ptr %ctx, i64 $C_A_NODE$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %os = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %t1 = call ptr @type(ptr %x1)
  %t2 = call ptr @type(ptr %x2)
  %a1 = icmp eq ptr %t1, %at
  %a2 = icmp eq ptr %t2, %at
  br i1 %a1, label %left, label %notleft
left:
  %n1 = call ptr @get(ptr %x1, i64 %an)
  %n1null = icmp eq ptr %n1, null
  br i1 %n1null, label %fallback, label %left1
left1:
  call void @Py_IncRef(ptr %n1)
  %d1 = call ptr @get(ptr %n1, i64 %od)
  %sh1 = call ptr @get(ptr %n1, i64 %os)
  br i1 %a2, label %both, label %rscalar
both:
  %n2 = call ptr @get(ptr %x2, i64 %an)
  %n2null = icmp eq ptr %n2, null
  br i1 %n2null, label %fb1, label %both1
both1:
  call void @Py_IncRef(ptr %n2)
  %d2 = call ptr @get(ptr %n2, i64 %od)
  %samed = icmp eq ptr %d2, %d1
  br i1 %samed, label %both2, label %fb12
both2:
  %sh2 = call ptr @get(ptr %n2, i64 %os)
  %samesh = icmp eq ptr %sh2, %sh1
  br i1 %samesh, label %bothok, label %cmpshape
cmpshape:
  %eq = call i32 @PyObject_RichCompareBool(ptr %sh1, ptr %sh2, i32 2)
  %iseq = icmp eq i32 %eq, 1
  br i1 %iseq, label %bothok, label %shapeno
shapeno:
  %cerr = icmp slt i32 %eq, 0
  br i1 %cerr, label %clearfb, label %bcast
bcast:
  ; shapes that differ: both operands broadcast to their common shape (a new node for
  ; each that changes), as _elementwise._broadcast_pair makes them
  %bst = call i32 @lz_broadcast_pair(ptr %ctx, ptr %n1, ptr %n2, ptr %bout)
  switch i32 %bst, label %bfail [i32 0, label %fb12
                                 i32 1, label %bmade]
bfail:
  call void @Py_DecRef(ptr %n1)
  call void @Py_DecRef(ptr %n2)
  br label %error
bmade:
  call void @Py_DecRef(ptr %n1)
  call void @Py_DecRef(ptr %n2)
  %b1 = load ptr, ptr %bout
  %bp2 = getelementptr ptr, ptr %bout, i64 1
  %b2 = load ptr, ptr %bp2
  %bp3 = getelementptr ptr, ptr %bout, i64 2
  %bsh = load ptr, ptr %bp3
  ; (the node broadcast to it holds the shape until the result's node holds it: one of
  ; the two always is, the shapes differing)
  call void @Py_DecRef(ptr %bsh)
  br label %record
clearfb:
  call void @PyErr_Clear()
  br label %fb12
fb12:
  call void @Py_DecRef(ptr %n2)
  br label %fb1
fb1:
  call void @Py_DecRef(ptr %n1)
  br label %fallback
bothok:
  br label %record
rscalar:
  %s2 = call ptr @lz_scalar(ptr %ctx, ptr %x2, ptr %d1)
  %s2null = icmp eq ptr %s2, null
  br i1 %s2null, label %scalarnol, label %record
scalarnol:
  call void @Py_DecRef(ptr %n1)
  br label %scalarno
notleft:
  br i1 %a2, label %right, label %fallback
right:
  %n2r = call ptr @get(ptr %x2, i64 %an)
  %n2rnull = icmp eq ptr %n2r, null
  br i1 %n2rnull, label %fallback, label %right1
right1:
  call void @Py_IncRef(ptr %n2r)
  %d2r = call ptr @get(ptr %n2r, i64 %od)
  %sh2r = call ptr @get(ptr %n2r, i64 %os)
  %s1 = call ptr @lz_scalar(ptr %ctx, ptr %x1, ptr %d2r)
  %s1null = icmp eq ptr %s1, null
  br i1 %s1null, label %scalarnor, label %record
scalarnor:
  call void @Py_DecRef(ptr %n2r)
  br label %scalarno
scalarno:
  %serr = call i1 @failed()
  br i1 %serr, label %error, label %fallback
record:
  %o1 = phi ptr [%n1, %bothok], [%n1, %rscalar], [%s1, %right1], [%b1, %bmade]
  %o2 = phi ptr [%n2, %bothok], [%s2, %rscalar], [%n2r, %right1], [%b2, %bmade]
  %d = phi ptr [%d1, %bothok], [%d1, %rscalar], [%d2r, %right1], [%d1, %bmade]
  %shape = phi ptr [%sh1, %bothok], [%sh1, %rscalar], [%sh2r, %right1], [%bsh, %bmade]
  %results = call ptr @w(ptr %ctx, i64 $C_RESULTS$)
  %rd = call ptr @PyDict_GetItemWithError(ptr %results, ptr %d)
  %nord = icmp eq ptr %rd, null
  br i1 %nord, label %nodtype, label %sign
nodtype:
  call void @Py_DecRef(ptr %o1)
  call void @Py_DecRef(ptr %o2)
  %derr = call i1 @failed()
  br i1 %derr, label %error, label %fallback
sign:
  %osig = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  %sig1 = call ptr @get(ptr %o1, i64 %osig)
  %sig2 = call ptr @get(ptr %o2, i64 %osig)
  call void @Py_IncRef(ptr %sig1)
  call void @Py_IncRef(ptr %sig2)
  %sig = call ptr @lz_sig2(ptr %ctx, ptr %sig1, ptr %sig2)
  call void @Py_DecRef(ptr %sig1)
  call void @Py_DecRef(ptr %sig2)
  %nosig = icmp eq ptr %sig, null
  br i1 %nosig, label %dropboth, label %srcs
dropboth:
  call void @Py_DecRef(ptr %o1)
  call void @Py_DecRef(ptr %o2)
  br label %error
srcs:
  %src = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %o1, ptr %o2)
  call void @Py_DecRef(ptr %o1)
  %nosrc = icmp eq ptr %src, null
  br i1 %nosrc, label %dropsig, label %node
dropsig:
  call void @Py_DecRef(ptr %o2)
  call void @Py_DecRef(ptr %sig)
  br label %error
node:
  call void @PyObject_GC_UnTrack(ptr %src)
  %op = call ptr @w(ptr %ctx, i64 $C_OP$)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  ; (the shape stays alive: %o2 and %src hold its node until the node holds its own)
  %nd = call ptr @lz_node(ptr %ctx, ptr %op, ptr %rd, ptr %shape, ptr %src, ptr %none, ptr %sig)
  call void @Py_DecRef(ptr %o2)
  %nond = icmp eq ptr %nd, null
  br i1 %nond, label %error, label %wrap
wrap:
  %arr = call ptr @lz_wrap(ptr %ctx, ptr %nd)
  ret ptr %arr
error:
  ret ptr null
fallback:
  %r = call ptr @lz_fallback2(ptr %ctx, ptr %fa, ptr %fb)
  ret ptr %r
}

; ---- a unary op on %x (its node held from the moment it is read: see lz_binary)
define internal ptr @lz_unary(ptr %ctx, ptr %x) {
entry:
  %at = call ptr @w(ptr %ctx, i64 $C_ARRAY_T$)
  %t = call ptr @type(ptr %x)
  %isa = icmp eq ptr %t, %at
  br i1 %isa, label %arr, label %fallback
arr:
  %an = call i64 @wi(ptr %ctx, i64 $C_A_NODE$)
  %n = call ptr @get(ptr %x, i64 %an)
  %nnull = icmp eq ptr %n, null
  br i1 %nnull, label %fallback, label %have
have:
  call void @Py_IncRef(ptr %n)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %d = call ptr @get(ptr %n, i64 %od)
  %results = call ptr @w(ptr %ctx, i64 $C_RESULTS$)
  %rd = call ptr @PyDict_GetItemWithError(ptr %results, ptr %d)
  %nord = icmp eq ptr %rd, null
  br i1 %nord, label %nodtype, label %sign
nodtype:
  call void @Py_DecRef(ptr %n)
  %derr = call i1 @failed()
  br i1 %derr, label %error, label %fallback
sign:
  %osig = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  %s = call ptr @get(ptr %n, i64 %osig)
  call void @Py_IncRef(ptr %s)
  %sig = call ptr @lz_sig1(ptr %ctx, ptr %s)
  call void @Py_DecRef(ptr %s)
  %nosig = icmp eq ptr %sig, null
  br i1 %nosig, label %dropn, label %srcs
srcs:
  %src = call ptr (i64, ...) @PyTuple_Pack(i64 1, ptr %n)
  %nosrc = icmp eq ptr %src, null
  br i1 %nosrc, label %dropsig, label %node
dropsig:
  call void @Py_DecRef(ptr %sig)
  br label %dropn
dropn:
  call void @Py_DecRef(ptr %n)
  br label %error
node:
  call void @PyObject_GC_UnTrack(ptr %src)
  %op = call ptr @w(ptr %ctx, i64 $C_OP$)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %os = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %shape = call ptr @get(ptr %n, i64 %os)
  %nd = call ptr @lz_node(ptr %ctx, ptr %op, ptr %rd, ptr %shape, ptr %src, ptr %none, ptr %sig)
  call void @Py_DecRef(ptr %n)
  %nond = icmp eq ptr %nd, null
  br i1 %nond, label %error, label %wrap
wrap:
  %a = call ptr @lz_wrap(ptr %ctx, ptr %nd)
  ret ptr %a
error:
  ret ptr null
fallback:
  %r = call ptr @lz_fallback1(ptr %ctx, ptr %x)
  ret ptr %r
}

; ---- a method: self is the Array (METH_O: %other is the operand; METH_NOARGS: NULL)
define internal ptr @lz_method(ptr %ctx, ptr %self, ptr %other) {
entry:
  %kind = call i64 @wi(ptr %ctx, i64 $C_KIND$)
  switch i64 %kind, label %unary [i64 0, label %forward
                                  i64 1, label %reflected
                                  i64 3, label %getitem
                                  i64 $MATMUL$, label %matmul
                                  i64 $FLOAT$, label %float
                                  i64 $BOOL$, label %bool]
float:
  %fl = call ptr @lz_read_scalar(ptr %ctx, ptr %self, i1 1)
  ret ptr %fl
bool:
  %bl = call ptr @lz_read_scalar(ptr %ctx, ptr %self, i1 0)
  ret ptr %bl
matmul:
  %mm = call ptr @lz_matmul(ptr %ctx, ptr %self, ptr %other)
  ret ptr %mm
forward:
  %f = call ptr @lz_binary(ptr %ctx, ptr %self, ptr %other, ptr %self, ptr %other)
  ret ptr %f
reflected:
  %r = call ptr @lz_binary(ptr %ctx, ptr %other, ptr %self, ptr %self, ptr %other)
  ret ptr %r
unary:
  %u = call ptr @lz_unary(ptr %ctx, ptr %self)
  ret ptr %u
getitem:
  %g = call ptr @lz_getitem(ptr %ctx, ptr %self, ptr %other)
  ret ptr %g
}

; ---- an exact Python int fitting int64 (and above its minimum): its value, *%ok = 1
define internal i64 @lz_int(ptr %ctx, ptr %o, ptr %ok) {
entry:
  %ovf = alloca i32
  store i1 0, ptr %ok
  %t = call ptr @type(ptr %o)
  %it = call ptr @w(ptr %ctx, i64 $C_INT_T$)
  %isi = icmp eq ptr %t, %it
  br i1 %isi, label %conv, label %no
conv:
  store i32 0, ptr %ovf
  %v = call i64 @PyLong_AsLongLongAndOverflow(ptr %o, ptr %ovf)
  %of = load i32, ptr %ovf
  %over = icmp ne i32 %of, 0
  %min = icmp eq i64 %v, -9223372036854775808
  %out = or i1 %over, %min
  br i1 %out, label %no, label %yes
yes:
  store i1 1, ptr %ok
  ret i64 %v
no:
  ret i64 0
}

; ---- a unit-step slice's bound %v clamped to [0, %size], as Python clamps it
define internal i64 @lz_clamp(i64 %v, i64 %size) {
entry:
  %neg = icmp slt i64 %v, 0
  br i1 %neg, label %n, label %p
n:
  %s = add i64 %v, %size
  %pos = icmp sgt i64 %s, 0
  %r1 = select i1 %pos, i64 %s, i64 0
  ret i64 %r1
p:
  %lt = icmp slt i64 %v, %size
  %r2 = select i1 %lt, i64 %v, i64 %size
  ret i64 %r2
}

; ---- x[key] for a basic index of Python ints and unit-step slices (bounds Python ints
; or None) on concrete sizes, as _indexing._quick_basic records it and _views.track
; links it; any other key, shape or size calls the Python function
define internal ptr @lz_getitem(ptr %ctx, ptr %x, ptr %key) {
entry:
  %kinds = alloca [$MAX_RANK$ x i64]  ; 0: slice item as written, 1: clamped slice item, 2: int
  %firsts = alloca [$MAX_RANK$ x i64]
  %cnts = alloca [$MAX_RANK$ x i64]   ; the axis's new size; -1: dropped (an int)
  %okp = alloca i1
  %at = call ptr @w(ptr %ctx, i64 $C_ARRAY_T$)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %t = call ptr @type(ptr %x)
  %isa = icmp eq ptr %t, %at
  br i1 %isa, label %hasnode, label %fallback
hasnode:
  %an = call i64 @wi(ptr %ctx, i64 $C_A_NODE$)
  %n = call ptr @get(ptr %x, i64 %an)
  %nnull = icmp eq ptr %n, null
  br i1 %nnull, label %fallback, label %shape
shape:
  %os = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %sh = call ptr @get(ptr %n, i64 %os)
  %rank = call i64 @size(ptr %sh)
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %kt = call ptr @type(ptr %key)
  %iskt = icmp eq ptr %kt, %tt
  br i1 %iskt, label %ktuple, label %keyed
ktuple:
  %nkt = call i64 @size(ptr %key)
  br label %keyed
keyed:
  %nk = phi i64 [%nkt, %ktuple], [1, %shape]
  %toolong = icmp sgt i64 %nk, %rank
  %toomany = icmp sgt i64 %nk, $MAX_RANK$
  %bad = or i1 %toolong, %toomany
  br i1 %bad, label %fallback, label %loop
loop:
  %d = phi i64 [0, %keyed], [%d1, %store]
  %last = phi i64 [0, %keyed], [%last1, %store]
  %more = icmp slt i64 %d, %nk
  br i1 %more, label %dim, label %dims_done
dim:
  br i1 %iskt, label %kfromt, label %haskey
kfromt:
  %kd = call ptr @item(ptr %key, i64 %d)
  br label %haskey
haskey:
  %k = phi ptr [%kd, %kfromt], [%key, %dim]
  %szo = call ptr @item(ptr %sh, i64 %d)
  %size = call i64 @lz_int(ptr %ctx, ptr %szo, ptr %okp)
  %szok = load i1, ptr %okp
  br i1 %szok, label %kind, label %fallback
kind:
  %ktp = call ptr @type(ptr %k)
  %slt = call ptr @w(ptr %ctx, i64 $C_SLICE_T$)
  %iss = icmp eq ptr %ktp, %slt
  br i1 %iss, label %slice, label %notslice
slice:
  %start = call ptr @get(ptr %k, i64 16)
  %stop = call ptr @get(ptr %k, i64 24)
  %step = call ptr @get(ptr %k, i64 32)
  %stepnone = icmp eq ptr %step, %none
  br i1 %stepnone, label %bounds, label %stepint
stepint:
  %sv = call i64 @lz_int(ptr %ctx, ptr %step, ptr %okp)
  %svok = load i1, ptr %okp
  %one = icmp eq i64 %sv, 1
  %unit = and i1 %svok, %one
  br i1 %unit, label %bounds, label %fallback
bounds:
  %startnone = icmp eq ptr %start, %none
  br i1 %startnone, label %firstdone, label %firstint
firstint:
  %sv1 = call i64 @lz_int(ptr %ctx, ptr %start, ptr %okp)
  %sv1ok = load i1, ptr %okp
  br i1 %sv1ok, label %firstc, label %fallback
firstc:
  %fc = call i64 @lz_clamp(i64 %sv1, i64 %size)
  br label %firstdone
firstdone:
  %first = phi i64 [%fc, %firstc], [0, %bounds]
  %stopnone = icmp eq ptr %stop, %none
  br i1 %stopnone, label %enddone, label %endint
endint:
  %ev = call i64 @lz_int(ptr %ctx, ptr %stop, ptr %okp)
  %evok = load i1, ptr %okp
  br i1 %evok, label %endc, label %fallback
endc:
  %ec = call i64 @lz_clamp(i64 %ev, i64 %size)
  br label %enddone
enddone:
  %end = phi i64 [%ec, %endc], [%size, %firstdone]
  %gt = icmp sgt i64 %end, %first
  %diff = sub i64 %end, %first
  %cnt = select i1 %gt, i64 %diff, i64 0
  %keep = icmp sgt i64 %cnt, 1
  %kslice = select i1 %keep, i64 0, i64 1
  %isfull = and i1 %startnone, %stopnone
  %full = and i1 %isfull, %keep
  br label %store
notslice:
  %iv = call i64 @lz_int(ptr %ctx, ptr %k, ptr %okp)
  %ivok = load i1, ptr %okp
  br i1 %ivok, label %intrange, label %fallback
intrange:
  %negsize = sub i64 0, %size
  %ge = icmp sge i64 %iv, %negsize
  %ltsz = icmp slt i64 %iv, %size
  %inr = and i1 %ge, %ltsz
  br i1 %inr, label %store, label %fallback
store:
  %kd_ = phi i64 [%kslice, %enddone], [2, %intrange]
  %fd_ = phi i64 [%first, %enddone], [0, %intrange]
  %cd_ = phi i64 [%cnt, %enddone], [-1, %intrange]
  %fl_ = phi i1 [%full, %enddone], [0, %intrange]
  %kp = getelementptr i64, ptr %kinds, i64 %d
  store i64 %kd_, ptr %kp
  %fp = getelementptr i64, ptr %firsts, i64 %d
  store i64 %fd_, ptr %fp
  %cp = getelementptr i64, ptr %cnts, i64 %d
  store i64 %cd_, ptr %cp
  %d1 = add i64 %d, 1
  %last1 = select i1 %fl_, i64 %last, i64 %d1
  br label %loop
dims_done:
  %allfull = icmp eq i64 %last, 0
  br i1 %allfull, label %fallback, label %ploop
; the new shape's rank and size: every size an int, the size above 0 and within int64
ploop:
  %j = phi i64 [0, %dims_done], [%j1, %pnext]
  %prod = phi i64 [1, %dims_done], [%prod1, %pnext]
  %outr = phi i64 [0, %dims_done], [%outr1, %pnext]
  %pm = icmp slt i64 %j, %rank
  br i1 %pm, label %pdim, label %pdone
pdim:
  %inkey = icmp slt i64 %j, %nk
  br i1 %inkey, label %pkeyed, label %ptrail
pkeyed:
  %cpj = getelementptr i64, ptr %cnts, i64 %j
  %cj = load i64, ptr %cpj
  %dropped = icmp slt i64 %cj, 0
  br i1 %dropped, label %pnext, label %pmul
ptrail:
  %tso = call ptr @item(ptr %sh, i64 %j)
  %tv = call i64 @lz_int(ptr %ctx, ptr %tso, ptr %okp)
  %tvok = load i1, ptr %okp
  br i1 %tvok, label %pmul, label %fallback
pmul:
  %sz = phi i64 [%cj, %pkeyed], [%tv, %ptrail]
  %m = call {i64, i1} @llvm.smul.with.overflow.i64(i64 %prod, i64 %sz)
  %mv = extractvalue {i64, i1} %m, 0
  %mo = extractvalue {i64, i1} %m, 1
  %outr2 = add i64 %outr, 1
  br i1 %mo, label %fallback, label %pnext
pnext:
  %prod1 = phi i64 [%mv, %pmul], [%prod, %pkeyed]
  %outr1 = phi i64 [%outr2, %pmul], [%outr, %pkeyed]
  %j1 = add i64 %j, 1
  br label %ploop
pdone:
  %pos = icmp sgt i64 %prod, 0
  br i1 %pos, label %build, label %fallback
; ---- from here on only memory can fail: the items.  The node is held from here (an
; allocation may run Python code: see lz_binary), and released at every exit below
build:
  call void @Py_IncRef(ptr %n)
  %sstr = call ptr @w(ptr %ctx, i64 $C_S$)
  %istr = call ptr @w(ptr %ctx, i64 $C_I$)
  %onev = call ptr @w(ptr %ctx, i64 $C_ONE$)
  %arg = call ptr @PyTuple_New(i64 %last)
  %noarg = icmp eq ptr %arg, null
  br i1 %noarg, label %error, label %items
items:
  %i = phi i64 [0, %build], [%i1, %itemput]
  %im = icmp slt i64 %i, %last
  br i1 %im, label %itemk, label %shapeb
itemk:
  br i1 %iskt, label %ikt, label %ik
ikt:
  %kk1 = call ptr @item(ptr %key, i64 %i)
  br label %ik
ik:
  %kk = phi ptr [%kk1, %ikt], [%key, %itemk]
  %kpi = getelementptr i64, ptr %kinds, i64 %i
  %kindi = load i64, ptr %kpi
  switch i64 %kindi, label %itint [i64 0, label %itkept
                                   i64 1, label %itclamped]
itkept:
  %s0 = call ptr @get(ptr %kk, i64 16)
  %s1 = call ptr @get(ptr %kk, i64 24)
  %tup0 = call ptr (i64, ...) @PyTuple_Pack(i64 4, ptr %sstr, ptr %s0, ptr %s1, ptr %onev)
  br label %itemset
itclamped:
  %fpi = getelementptr i64, ptr %firsts, i64 %i
  %firsti = load i64, ptr %fpi
  %cpi = getelementptr i64, ptr %cnts, i64 %i
  %cnti = load i64, ptr %cpi
  %nz = icmp ne i64 %cnti, 0
  %a = select i1 %nz, i64 %firsti, i64 0
  %b0 = add i64 %firsti, %cnti
  %b = select i1 %nz, i64 %b0, i64 0
  %la = call ptr @PyLong_FromLongLong(i64 %a)
  %nola = icmp eq ptr %la, null
  br i1 %nola, label %errorarg, label %itlb
itlb:
  %lb = call ptr @PyLong_FromLongLong(i64 %b)
  %nolb = icmp eq ptr %lb, null
  br i1 %nolb, label %errorla, label %itpack
errorla:
  call void @Py_DecRef(ptr %la)
  br label %errorarg
itpack:
  %tup1 = call ptr (i64, ...) @PyTuple_Pack(i64 4, ptr %sstr, ptr %la, ptr %lb, ptr %onev)
  call void @Py_DecRef(ptr %la)
  call void @Py_DecRef(ptr %lb)
  br label %itemset
itint:
  %tup2 = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %istr, ptr %kk)
  br label %itemset
itemset:
  %tup = phi ptr [%tup0, %itkept], [%tup1, %itpack], [%tup2, %itint]
  %notup = icmp eq ptr %tup, null
  br i1 %notup, label %errorarg, label %itemput
itemput:
  %io = mul i64 %i, 8
  %io1 = add i64 %io, $TUPLE_ITEMS$
  call void @set(ptr %arg, i64 %io1, ptr %tup)
  %i1 = add i64 %i, 1
  br label %items
; ---- the new shape: the sliced axes' sizes, then the axes the key did not reach
shapeb:
  %nsh = call ptr @PyTuple_New(i64 %outr)
  %nonsh = icmp eq ptr %nsh, null
  br i1 %nonsh, label %errorarg, label %sloop
sloop:
  %q = phi i64 [0, %shapeb], [%q1, %snext]
  %p = phi i64 [0, %shapeb], [%p1, %snext]
  %sm = icmp slt i64 %q, %rank
  br i1 %sm, label %sdim, label %sig
sdim:
  %qin = icmp slt i64 %q, %nk
  br i1 %qin, label %skeyed, label %strail
skeyed:
  %cpq = getelementptr i64, ptr %cnts, i64 %q
  %cq = load i64, ptr %cpq
  %qdropped = icmp slt i64 %cq, 0
  br i1 %qdropped, label %snext, label %snew
snew:
  %lq = call ptr @PyLong_FromLongLong(i64 %cq)
  %nolq = icmp eq ptr %lq, null
  br i1 %nolq, label %errorboth, label %sput
strail:
  %oq = call ptr @item(ptr %sh, i64 %q)
  call void @Py_IncRef(ptr %oq)
  br label %sput
sput:
  %vq = phi ptr [%lq, %snew], [%oq, %strail]
  %po = mul i64 %p, 8
  %po1 = add i64 %po, $TUPLE_ITEMS$
  call void @set(ptr %nsh, i64 %po1, ptr %vq)
  %p2 = add i64 %p, 1
  br label %snext
snext:
  %p1 = phi i64 [%p, %skeyed], [%p2, %sput]
  %q1 = add i64 %q, 1
  br label %sloop
; ---- the node, with its signature as the recording makes it (backend/record.ll)
sig:
  %src = call ptr (i64, ...) @PyTuple_Pack(i64 1, ptr %n)
  %nosrc = icmp eq ptr %src, null
  br i1 %nosrc, label %errorboth, label %signed
signed:
  call void @PyObject_GC_UnTrack(ptr %src)
  %op = call ptr @w(ptr %ctx, i64 $C_OP$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %dt = call ptr @get(ptr %n, i64 %od)
  %sigv = call ptr @lz_record_sig(ptr %ctx, ptr %op, ptr %dt, ptr %nsh, ptr %src, ptr %arg)
  %nosigv = icmp eq ptr %sigv, null
  br i1 %nosigv, label %errorsrc, label %node
errorsrc:
  call void @Py_DecRef(ptr %src)
  br label %errorboth
node:
  %nd = call ptr @lz_node_arg(ptr %ctx, ptr %op, ptr %dt, ptr %nsh, ptr %src, ptr %arg, ptr %none, ptr %sigv)
  call void @Py_DecRef(ptr %nsh)
  call void @Py_DecRef(ptr %arg)
  %nond = icmp eq ptr %nd, null
  br i1 %nond, label %error, label %wrap
wrap:
  %out = call ptr @lz_wrap(ptr %ctx, ptr %nd)
  %noout = icmp eq ptr %out, null
  br i1 %noout, label %error, label %track
track:
  %trk = call ptr @w(ptr %ctx, i64 $C_TRACK$)
  %istr2 = call ptr @w(ptr %ctx, i64 $C_INDEX$)
  %linked = call ptr @lz_link(ptr %ctx, ptr %x, ptr %istr2, ptr %key, ptr %out, ptr %trk)
  call void @Py_DecRef(ptr %n)
  ret ptr %linked
errorboth:
  call void @Py_DecRef(ptr %nsh)
  br label %errorarg
errorarg:
  call void @Py_DecRef(ptr %arg)
  br label %error
error:
  call void @Py_DecRef(ptr %n)
  ret ptr null
fallback:
  %r = call ptr @lz_fallback2(ptr %ctx, ptr %x, ptr %key)
  ret ptr %r
}

; ---- the weak references of the list %views whose views are gone, dropped in place
; (the live ones keep their order): 0, -1 on error (a reference that failed to call)
define internal i32 @lz_prune_views(ptr %ctx, ptr %views) {
entry:
  %n = call i64 @size(ptr %views)
  %items = call ptr @get(ptr %views, i64 $LIST_ITEMS$)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %next]
  %j = phi i64 [0, %entry], [%j1, %next]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %pi = getelementptr ptr, ptr %items, i64 %i
  %r = load ptr, ptr %pi
  %o = call ptr @PyObject_Vectorcall(ptr %r, ptr null, i64 0, ptr null)
  %noo = icmp eq ptr %o, null
  br i1 %noo, label %failed, label %called
called:
  %dead = icmp eq ptr %o, %none
  call void @Py_DecRef(ptr %o)
  br i1 %dead, label %drop, label %keep
drop:
  ; (a weak reference without a callback: freeing it runs no Python code)
  call void @Py_DecRef(ptr %r)
  br label %next
keep:
  %pj = getelementptr ptr, ptr %items, i64 %j
  store ptr %r, ptr %pj
  %jk = add i64 %j, 1
  br label %next
next:
  %j1 = phi i64 [%j, %drop], [%jk, %keep]
  %i1 = add i64 %i, 1
  br label %loop
done:
  call void @set_size(ptr %views, i64 %j)
  ret i32 0
failed:
  ; the items not looked at yet move down after the kept ones: the list stays whole
  br label %shift
shift:
  %k = phi i64 [%i, %failed], [%k1, %move]
  %jj = phi i64 [%j, %failed], [%jj1, %move]
  %smore = icmp slt i64 %k, %n
  br i1 %smore, label %move, label %sdone
move:
  %pk = getelementptr ptr, ptr %items, i64 %k
  %rk = load ptr, ptr %pk
  %pjj = getelementptr ptr, ptr %items, i64 %jj
  store ptr %rk, ptr %pjj
  %k1 = add i64 %k, 1
  %jj1 = add i64 %jj, 1
  br label %shift
sdone:
  call void @set_size(ptr %views, i64 %jj)
  ret i32 -1
}

; ---- the view %out (stolen) linked to its base %x as _views._link links it (its
; _view_of is (%x, (%tag, %key)), a weak reference to it in %x's _views, whose dead ones
; are dropped at each power of two from 16 views on); a _views that is not a list: the
; Python function %pyfn(x, key, out) does it all.  The view, NULL on error
define internal ptr @lz_link(ptr %ctx, ptr %x, ptr %tag, ptr %key, ptr %out, ptr %pyfn) {
entry:
  %ovs = call i64 @wi(ptr %ctx, i64 $C_A_VIEWS$)
  %views = call ptr @get(ptr %x, i64 %ovs)
  %noviews = icmp eq ptr %views, null
  br i1 %noviews, label %link, label %haveviews
haveviews:
  %vt = call ptr @type(ptr %views)
  %lt = call ptr @w(ptr %ctx, i64 $C_LIST_T$)
  %isl = icmp eq ptr %vt, %lt
  br i1 %isl, label %vlen, label %pytrack
vlen:
  %len = call i64 @size(ptr %views)
  %nl = add i64 %len, 1
  %nl1 = sub i64 %nl, 1
  %pow = and i64 %nl, %nl1
  %ispow = icmp eq i64 %pow, 0
  %big = icmp sge i64 %nl, 16
  %prune = and i1 %ispow, %big
  br i1 %prune, label %pruning, label %link
pruning:
  ; views taken in a loop die young: the dead ones are dropped at each power of two (as
  ; _views._link drops them), so the list stays within twice the live views
  %pr = call i32 @lz_prune_views(ptr %ctx, ptr %views)
  %prbad = icmp ne i32 %pr, 0
  br i1 %prbad, label %errorout, label %link
pytrack:
  ; (views that are not a list: the Python function does all of it)
  %tr = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %pyfn, ptr %x, ptr %key, ptr %out, ptr null)
  call void @Py_DecRef(ptr %out)
  ret ptr %tr
link:
  %how = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %tag, ptr %key)
  %nohow = icmp eq ptr %how, null
  br i1 %nohow, label %errorout, label %viewof
viewof:
  %vo = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %x, ptr %how)
  call void @Py_DecRef(ptr %how)
  %novo = icmp eq ptr %vo, null
  br i1 %novo, label %errorout, label %setvo
setvo:
  %ovo = call i64 @wi(ptr %ctx, i64 $C_A_VIEW_OF$)
  call void @set(ptr %out, i64 %ovo, ptr %vo)
  %ref = call ptr @PyWeakref_NewRef(ptr %out, ptr null)
  %noref = icmp eq ptr %ref, null
  br i1 %noref, label %errorout, label %addref
addref:
  br i1 %noviews, label %newlist, label %append
newlist:
  %l = call ptr @PyList_New(i64 0)
  %nol = icmp eq ptr %l, null
  br i1 %nol, label %errorref, label %lappend
lappend:
  %rc = call i32 @PyList_Append(ptr %l, ptr %ref)
  call void @Py_DecRef(ptr %ref)
  %rcbad = icmp ne i32 %rc, 0
  br i1 %rcbad, label %errorl, label %setl
errorl:
  call void @Py_DecRef(ptr %l)
  br label %errorout
setl:
  call void @set(ptr %x, i64 %ovs, ptr %l)
  ret ptr %out
append:
  %rc2 = call i32 @PyList_Append(ptr %views, ptr %ref)
  call void @Py_DecRef(ptr %ref)
  %rc2bad = icmp ne i32 %rc2, 0
  br i1 %rc2bad, label %errorout, label %appended
appended:
  ret ptr %out
errorref:
  call void @Py_DecRef(ptr %ref)
  br label %errorout
errorout:
  call void @Py_DecRef(ptr %out)
  ret ptr null
}

; ---- a module function (METH_FASTCALL | METH_KEYWORDS): self is (context array, ...);
; keywords go to the Python function (which says what is wrong with them), but for the
; functions of backend/manipulation.ll, which take some
define ptr @lazyarray_rec_fn(ptr %self, ptr %args, i64 %nargs, ptr %kwnames) {
entry:
  %arr = call ptr @item(ptr %self, i64 0)
  %ctx = call ptr @get(ptr %arr, i64 $ARRAY_DATA$)
  %kind = call i64 @wi(ptr %ctx, i64 $C_KIND$)
  %shaped = icmp sge i64 %kind, $RESHAPE$
  br i1 %shaped, label %manipulation, label %classic
manipulation:
  %mpr = call ptr @lz_manipulation_entry(ptr %ctx, i64 %kind, ptr %args, i64 %nargs, ptr %kwnames)
  ret ptr %mpr
classic:
  %kw = icmp ne ptr %kwnames, null
  br i1 %kw, label %other, label %positional
positional:
  switch i64 %kind, label %binary [i64 $UNARY$, label %unary
                                   i64 $STEPS$, label %steps
                                   i64 $RECORD$, label %record
                                   i64 $SIGNATURE$, label %record
                                   i64 $MATERIALIZE$, label %materialize
                                   i64 $MATMUL$, label %matmul
                                   i64 $TRANSPOSE$, label %transpose]
transpose:
  %one1 = icmp eq i64 %nargs, 1
  br i1 %one1, label %transpose1, label %other
transpose1:
  %tx = load ptr, ptr %args
  %tr = call ptr @lz_transpose(ptr %ctx, ptr %tx)
  ret ptr %tr
matmul:
  %two2 = icmp eq i64 %nargs, 2
  br i1 %two2, label %matmul2, label %other
matmul2:
  %m1 = load ptr, ptr %args
  %mp = getelementptr ptr, ptr %args, i64 1
  %m2 = load ptr, ptr %mp
  %mm = call ptr @lz_matmul(ptr %ctx, ptr %m1, ptr %m2)
  ret ptr %mm
materialize:
  %m = call ptr @lz_materialize_entry(ptr %ctx, ptr %args, i64 %nargs)
  ret ptr %m
record:
  %rc = call ptr @lz_record_entry(ptr %ctx, ptr %args, i64 %nargs)
  ret ptr %rc
steps:
  %s = call ptr @lz_steps_entry(ptr %ctx, ptr %args, i64 %nargs)
  ret ptr %s
unary:
  %one = icmp eq i64 %nargs, 1
  br i1 %one, label %unary1, label %other
unary1:
  %x = load ptr, ptr %args
  %u = call ptr @lz_unary(ptr %ctx, ptr %x)
  ret ptr %u
binary:
  %two = icmp eq i64 %nargs, 2
  br i1 %two, label %binary1, label %other
binary1:
  %a = load ptr, ptr %args
  %bp = getelementptr ptr, ptr %args, i64 1
  %b = load ptr, ptr %bp
  %r = call ptr @lz_binary(ptr %ctx, ptr %a, ptr %b, ptr %a, ptr %b)
  ret ptr %r
other:
  %fn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %o = call ptr @PyObject_Vectorcall(ptr %fn, ptr %args, i64 %nargs, ptr %kwnames)
  ret ptr %o
}
