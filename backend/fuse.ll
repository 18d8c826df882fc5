; Fused regions of the native steps (backend/steps.ll).  An elementwise node whose
; building block is loaded (C_FUSE: (op, dtype, source dtype) -> (address, numpy dtype,
; item size, source item size)), whose sources share one dtype and are arrays of its own
; shape (values, ops before it, or leading-axis slices of values) or float64, float32
; or int64 scalars, is fused: with the fused nodes that only it reads (and
; nobody outside the graph holds) it runs block by block on the building blocks, one call
; per op per block of $FUSE_BLOCK$ elements, its intermediates in registers.  No program
; is looked up, planned or made, and only the region's root gets a value.  Appended to
; backend/recorder.ll with steps.ll (one unit).

; (entries: (address, numpy dtype, item size, source item size, source numpy dtype))
declare ptr @PyObject_CallObject(ptr, ptr)
declare float @llvm.fabs.f32(float)
declare double @llvm.fabs.f64(double)

; the plan of a graph of at most $FUSE_MAX$ nodes (the steps' order): per node, in rows of
; $FUSE_MAX$ words
;   P_NODE  the node (borrowed: the order, then its consumers' sources hold it)
;   P_KIND  0 a step, 1 fused into its consumer's region, 2 a region's root
;   P_CONS  its one consumer's position; -1 none, -2 several
;   P_OCC   its occurrences among the graph's sources (then: its register, once run)
;   P_ENT   its building block's entry (borrowed from C_FUSE), or 0: not fusable
;   P_REG   the position of its region's root
;   P_SRC0, P_SRC1, P_SRC2  its sources' positions in the order, -1 for leaves
; (P_* and the row count are filled in by backend/recorder.py)

define internal i64 @pl(ptr %p, i64 %f, i64 %i) {
  %row = mul i64 %f, $FUSE_MAX$
  %at = add i64 %row, %i
  %a = getelementptr i64, ptr %p, i64 %at
  %v = load i64, ptr %a
  ret i64 %v
}
define internal void @ps(ptr %p, i64 %f, i64 %i, i64 %v) {
  %row = mul i64 %f, $FUSE_MAX$
  %at = add i64 %row, %i
  %a = getelementptr i64, ptr %p, i64 %at
  store i64 %v, ptr %a
  ret void
}
define internal ptr @plp(ptr %p, i64 %f, i64 %i) {
  %v = call i64 @pl(ptr %p, i64 %f, i64 %i)
  %q = inttoptr i64 %v to ptr
  ret ptr %q
}
define internal void @psp(ptr %p, i64 %f, i64 %i, ptr %q) {
  %v = ptrtoint ptr %q to i64
  call void @ps(ptr %p, i64 %f, i64 %i, i64 %v)
  ret void
}

; an int item of an entry tuple
define internal i64 @eint(ptr %ctx, ptr %e, i64 %i) {
  %ok = alloca i1
  %o = call ptr @item(ptr %e, i64 %i)
  %v = call i64 @lz_int(ptr %ctx, ptr %o, ptr %ok)
  ret i64 %v
}

; a value that a region reads where it lies: an ndarray (exactly) of numpy dtype %descr
; (that object) and %count elements, C-contiguous and aligned; its data pointer, or null
define internal ptr @lz_plain(ptr %ctx, ptr %v, ptr %descr, i64 %count) {
entry:
  %t = call ptr @type(ptr %v)
  %nt = call ptr @w(ptr %ctx, i64 $C_NDARRAY_T$)
  %isnd = icmp eq ptr %t, %nt
  br i1 %isnd, label %flags, label %no
flags:
  %fp = getelementptr i8, ptr %v, i64 $ARRAY_FLAGS$
  %f = load i32, ptr %fp
  %m = and i32 %f, 257  ; NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED
  %both = icmp eq i32 %m, 257
  %dp0 = getelementptr i8, ptr %v, i64 $ARRAY_DESCR$
  %d0 = load ptr, ptr %dp0
  %samed = icmp eq ptr %d0, %descr
  %ok = and i1 %both, %samed
  br i1 %ok, label %dims, label %no
dims:
  %ndp = getelementptr i8, ptr %v, i64 $ARRAY_NDIM$
  %nd32 = load i32, ptr %ndp
  %nd = sext i32 %nd32 to i64
  %dimsp = getelementptr i8, ptr %v, i64 $ARRAY_DIMS$
  %dims0 = load ptr, ptr %dimsp
  br label %loop
loop:
  %i = phi i64 [0, %dims], [%i1, %body]
  %prod = phi i64 [1, %dims], [%prod1, %body]
  %more = icmp slt i64 %i, %nd
  br i1 %more, label %body, label %counted
body:
  %dp = getelementptr i64, ptr %dims0, i64 %i
  %d = load i64, ptr %dp
  %prod1 = mul i64 %prod, %d
  %i1 = add i64 %i, 1
  br label %loop
counted:
  %right = icmp eq i64 %prod, %count
  br i1 %right, label %yes, label %no
yes:
  %ap = getelementptr i8, ptr %v, i64 $ARRAY_DATA$
  %a = load ptr, ptr %ap
  ret ptr %a
no:
  ret ptr null
}

; the structure id of a data leaf of dtype %dt and %shape, as Node makes it
; (ir._BUFFER_IDS, else ir.leaf_id): new reference, NULL on error
define internal ptr @lz_leaf_id(ptr %ctx, ptr %dt, ptr %shape) {
entry:
  %lk = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %dt, ptr %shape)
  %nolk = icmp eq ptr %lk, null
  br i1 %nolk, label %error, label %leafid
leafid:
  %ids = call ptr @w(ptr %ctx, i64 $C_BUFFER_IDS$)
  %lid = call ptr @PyDict_GetItemWithError(ptr %ids, ptr %lk)
  call void @Py_DecRef(ptr %lk)
  %nolid = icmp eq ptr %lid, null
  br i1 %nolid, label %leafmiss, label %leafhit
leafhit:
  call void @Py_IncRef(ptr %lid)
  ret ptr %lid
leafmiss:
  %lerr = call i1 @failed()
  br i1 %lerr, label %error, label %leafcall
leafcall:
  %lfn = call ptr @w(ptr %ctx, i64 $C_LEAF_ID$)
  %dop = call ptr @w(ptr %ctx, i64 $C_DATA_OP$)
  %lid2 = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %lfn, ptr %dop, ptr %dt, ptr %shape, ptr null)
  ret ptr %lid2
error:
  ret ptr null
}

; the element of scalar leaf %s that a region's register repeats, at %at (16 bytes):
; 8 bytes for a float64 leaf holding a float or an int and an int64 leaf holding an int,
; packed as the steps pack them (steps.ll's pack), 4 for a float32 leaf holding a float
; or an int (made a double, then rounded to nearest, as struct's "f" rounds it); 0 when a
; region does not take it (a float32 cannot hold the value: the packers warn as numpy
; does, so it is a step's)
define internal i64 @lz_scalar_bits(ptr %ctx, ptr %s, ptr %at) {
entry:
  %ok1 = alloca i1
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %d = call ptr @get(ptr %s, i64 %od)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %v = call ptr @get(ptr %s, i64 %ov)
  %f64 = call ptr @w(ptr %ctx, i64 $C_F64$)
  %i64 = call ptr @w(ptr %ctx, i64 $C_I64$)
  %f32 = call ptr @w(ptr %ctx, i64 $C_F32$)
  %isf64 = icmp eq ptr %d, %f64
  %isi64 = icmp eq ptr %d, %i64
  %isf32 = icmp eq ptr %d, %f32
  %kind = zext i1 %isi64 to i64  ; (pack's kinds: 0 a float, 1 an int)
  %wide = or i1 %isf64, %isi64
  br i1 %wide, label %packed, label %single
packed:
  %ok = call i1 @pack(ptr %ctx, ptr %v, i64 %kind, ptr %at)
  %w8 = select i1 %ok, i64 8, i64 0
  ret i64 %w8
single:
  br i1 %isf32, label %convert, label %no
convert:
  %xd = call double @lz_as_double(ptr %ctx, ptr %v, ptr %ok1)
  %took = load i1, ptr %ok1
  br i1 %took, label %range, label %no
range:
  %y = fptrunc double %xd to float
  %ay = call float @llvm.fabs.f32(float %y)
  %ax = call double @llvm.fabs.f64(double %xd)
  %yinf = fcmp oeq float %ay, 0x7FF0000000000000
  %xinf = fcmp oeq double %ax, 0x7FF0000000000000
  %xfin = xor i1 %xinf, 1
  %over = and i1 %yinf, %xfin
  br i1 %over, label %no, label %put
put:
  store float %y, ptr %at
  ret i64 4
no:
  ret i64 0
}

; the first element of a view that reads its base where it lies: a slice of the leading
; axis only, unit step (x[a:b], m[a:b]), of a base holding a value read where it lies;
; %count elements from there must lie inside the base (else null)
define internal ptr @lz_slice(ptr %ctx, ptr %s, ptr %descr, i64 %count, i64 %size) {
entry:
  %ok = alloca i1
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %op = call ptr @get(ptr %s, i64 %oo)
  %slice = call ptr @w(ptr %ctx, i64 $C_SLICE_OP$)
  %isslice = icmp eq ptr %op, %slice
  br i1 %isslice, label %arg, label %no
arg:
  %oa = call i64 @wi(ptr %ctx, i64 $C_N_ARG$)
  %a = call ptr @get(ptr %s, i64 %oa)
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %at = call ptr @type(ptr %a)
  %ist = icmp eq ptr %at, %tt
  br i1 %ist, label %one, label %no
one:
  %na = call i64 @size(ptr %a)
  %single = icmp eq i64 %na, 1
  br i1 %single, label %item, label %no
item:
  %it = call ptr @item(ptr %a, i64 0)
  %itt = call ptr @type(ptr %it)
  %isit = icmp eq ptr %itt, %tt
  br i1 %isit, label %four, label %no
four:
  %ni = call i64 @size(ptr %it)
  %is4 = icmp eq i64 %ni, 4
  br i1 %is4, label %tag, label %no
tag:
  %tg = call ptr @item(ptr %it, i64 0)
  %stag = call ptr @w(ptr %ctx, i64 $C_S$)
  %iss = icmp eq ptr %tg, %stag
  br i1 %iss, label %step, label %no
step:
  %stp = call ptr @item(ptr %it, i64 3)
  %sv = call i64 @lz_int(ptr %ctx, ptr %stp, ptr %ok)
  %sok = load i1, ptr %ok
  %unit = icmp eq i64 %sv, 1
  %stepok = and i1 %sok, %unit
  br i1 %stepok, label %base, label %no
base:
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %srcs = call ptr @get(ptr %s, i64 %osr)
  %k = call i64 @size(ptr %srcs)
  %k1 = icmp eq i64 %k, 1
  br i1 %k1, label %bvalue, label %no
bvalue:
  %b = call ptr @item(ptr %srcs, i64 0)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %bv = call ptr @get(ptr %b, i64 %ov)
  %hasbv = icmp ne ptr %bv, %none
  br i1 %hasbv, label %bshape, label %no
bshape:
  %osh = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %bsh = call ptr @get(ptr %b, i64 %osh)
  %bcount = call i64 @small(ptr %ctx, ptr %bsh)
  %nd = call i64 @size(ptr %bsh)
  %bsmall = icmp sge i64 %bcount, 0
  %ranked = icmp sge i64 %nd, 1
  %bok = and i1 %bsmall, %ranked
  br i1 %bok, label %lead, label %no
lead:
  %d0o = call ptr @item(ptr %bsh, i64 0)
  %d0 = call i64 @lz_int(ptr %ctx, ptr %d0o, ptr %ok)
  %empty = icmp eq i64 %d0, 0
  br i1 %empty, label %no, label %start
start:
  %rest = sdiv i64 %bcount, %d0
  %sto = call ptr @item(ptr %it, i64 1)
  %stnone = icmp eq ptr %sto, %none
  br i1 %stnone, label %data, label %stint
stint:
  %st = call i64 @lz_int(ptr %ctx, ptr %sto, ptr %ok)
  %stok = load i1, ptr %ok
  br i1 %stok, label %clamped, label %no
clamped:
  %stc = call i64 @lz_clamp(i64 %st, i64 %d0)
  br label %data
data:
  %first = phi i64 [0, %start], [%stc, %clamped]
  %bd = call ptr @lz_plain(ptr %ctx, ptr %bv, ptr %descr, i64 %bcount)
  %nobd = icmp eq ptr %bd, null
  br i1 %nobd, label %no, label %inside
inside:
  %skip = mul i64 %first, %rest
  %end = add i64 %skip, %count
  %fits = icmp sle i64 %end, %bcount
  br i1 %fits, label %yes, label %no
yes:
  %off = mul i64 %skip, %size
  %p = getelementptr i8, ptr %bd, i64 %off
  ret ptr %p
no:
  ret ptr null
}

; whether view %s is a broadcast (broadcast_to) of one source that is readable
; (lz_readable) or a reshape of one: a region may read it through lz_broadcast
define internal i1 @lz_broadcastable(ptr %ctx, ptr %s) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %op = call ptr @get(ptr %s, i64 %oo)
  %bop = call ptr @w(ptr %ctx, i64 $C_BROADCAST_OP$)
  %isb = icmp eq ptr %op, %bop
  br i1 %isb, label %srcs, label %no
srcs:
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %ss = call ptr @get(ptr %s, i64 %osr)
  %k = call i64 @size(ptr %ss)
  %one = icmp eq i64 %k, 1
  br i1 %one, label %base, label %no
base:
  %b = call ptr @item(ptr %ss, i64 0)
  %ok = call i1 @lz_readable(ptr %ctx, ptr %b)
  br i1 %ok, label %yes, label %reshaped
reshaped:
  %r = call i1 @lz_reshaped(ptr %ctx, ptr %b)
  ret i1 %r
yes:
  ret i1 1
no:
  ret i1 0
}

; whether node %b has its value, or is an op (no view) computed before its readers
define internal i1 @lz_readable(ptr %ctx, ptr %b) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %bv = call ptr @get(ptr %b, i64 %ov)
  %hasv = icmp ne ptr %bv, %none
  br i1 %hasv, label %yes, label %computed
computed:
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %bop = call ptr @get(ptr %b, i64 %oo)
  %views = call ptr @w(ptr %ctx, i64 $C_VIEWS$)
  %vw = call i32 @PySet_Contains(ptr %views, ptr %bop)
  %notview = icmp eq i32 %vw, 0
  ret i1 %notview
yes:
  ret i1 1
}

; whether view %s reads its one source's elements in their order (reshape, expand_dims,
; squeeze: C_RESHAPES) and that source is readable (lz_readable)
define internal i1 @lz_reshaped(ptr %ctx, ptr %s) {
entry:
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %op = call ptr @get(ptr %s, i64 %oo)
  %rs = call ptr @w(ptr %ctx, i64 $C_RESHAPES$)
  %isr = call i32 @PySet_Contains(ptr %rs, ptr %op)
  %yes = icmp eq i32 %isr, 1
  br i1 %yes, label %srcs, label %no
srcs:
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %ss = call ptr @get(ptr %s, i64 %osr)
  %k = call i64 @size(ptr %ss)
  %one = icmp eq i64 %k, 1
  br i1 %one, label %base, label %no
base:
  %b = call ptr @item(ptr %ss, i64 0)
  %ok = call i1 @lz_readable(ptr %ctx, ptr %b)
  ret i1 %ok
no:
  ret i1 0
}

; the first element of reshape-like view %s (lz_reshaped) of %count elements of numpy
; dtype %descr: its source's value's, read where it lies; null when it has none that is
define internal ptr @lz_reshaped_data(ptr %ctx, ptr %s, ptr %descr, i64 %count) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %ok = call i1 @lz_reshaped(ptr %ctx, ptr %s)
  br i1 %ok, label %base, label %no
base:
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %ss = call ptr @get(ptr %s, i64 %osr)
  %b = call ptr @item(ptr %ss, i64 0)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %bv = call ptr @get(ptr %b, i64 %ov)
  %hasv = icmp ne ptr %bv, %none
  br i1 %hasv, label %plain, label %no
plain:
  %d = call ptr @lz_plain(ptr %ctx, ptr %bv, ptr %descr, i64 %count)
  ret ptr %d
no:
  ret ptr null
}

; the first element of broadcast view %s's value of %count elements of numpy dtype
; %descr, given to it now (C_BROADCAST_FN(its base's value, or the value its base reshapes;
; the base's shape; its shape): a C-contiguous copy, which the view holds while the region
; reads it), or null when its base has no value that makes one (the walk takes over, and
; raises what is wrong)
define internal ptr @lz_broadcast(ptr %ctx, ptr %s, ptr %descr, i64 %count) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %osh = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %bok = call i1 @lz_broadcastable(ptr %ctx, ptr %s)
  br i1 %bok, label %base, label %no
base:
  %ss = call ptr @get(ptr %s, i64 %osr)
  %b = call ptr @item(ptr %ss, i64 0)
  %bv0 = call ptr @get(ptr %b, i64 %ov)
  %hasv0 = icmp ne ptr %bv0, %none
  br i1 %hasv0, label %make, label %inner
inner:
  ; (a reshape of a value, broadcast: x[:, None] against a matrix)
  %re = call i1 @lz_reshaped(ptr %ctx, ptr %b)
  br i1 %re, label %innerv, label %no
innerv:
  %bs = call ptr @get(ptr %b, i64 %osr)
  %bb = call ptr @item(ptr %bs, i64 0)
  %bv1 = call ptr @get(ptr %bb, i64 %ov)
  %hasv1 = icmp ne ptr %bv1, %none
  br i1 %hasv1, label %make, label %no
make:
  %bv = phi ptr [%bv0, %base], [%bv1, %innerv]
  %shape = call ptr @get(ptr %s, i64 %osh)
  %bshape = call ptr @get(ptr %b, i64 %osh)
  %fn = call ptr @w(ptr %ctx, i64 $C_BROADCAST_FN$)
  %arr = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %bv, ptr %bshape, ptr %shape, ptr null)
  %noarr = icmp eq ptr %arr, null
  br i1 %noarr, label %clear, label %plain
plain:
  %data = call ptr @lz_plain(ptr %ctx, ptr %arr, ptr %descr, i64 %count)
  %nodata = icmp eq ptr %data, null
  br i1 %nodata, label %drop, label %leaf
leaf:
  %dt = call ptr @get(ptr %s, i64 %od)
  %lid = call ptr @lz_leaf_id_cached(ptr %ctx, ptr %dt, ptr %shape)
  %nolid = icmp eq ptr %lid, null
  br i1 %nolid, label %dropclear, label %give
give:
  %st = call i32 @lz_evaluated(ptr %ctx, ptr %s, ptr %arr, ptr %lid, i1 0)
  call void @Py_DecRef(ptr %lid)
  %bad = icmp slt i32 %st, 0
  br i1 %bad, label %clear, label %given
given:
  ; (the view holds it now; it was evaluated by no one else: nothing ran meanwhile)
  ret ptr %data
dropclear:
  call void @Py_DecRef(ptr %arr)
  br label %clear
clear:
  call void @PyErr_Clear()
  br label %no
drop:
  call void @Py_DecRef(ptr %arr)
  br label %no
no:
  ret ptr null
}

; ---- the entry of tuple %key in table %tab (a dict; borrowed: the table keeps its entries
; for the process's life), asking %fn(*key) on a miss, which puts its answer there or
; answers None without keeping it (then asked again later); null when there is none (an
; error when set)
define internal ptr @lz_table_get(ptr %tab, ptr %fn, ptr %key) {
entry:
  %hit = call ptr @PyDict_GetItemWithError(ptr %tab, ptr %key)
  %miss = icmp eq ptr %hit, null
  br i1 %miss, label %missed, label %found
missed:
  %err = call i1 @failed()
  br i1 %err, label %no, label %ask
ask:
  %r = call ptr @PyObject_CallObject(ptr %fn, ptr %key)
  %nor = icmp eq ptr %r, null
  br i1 %nor, label %no, label %asked
asked:
  call void @Py_DecRef(ptr %r)
  %hit2 = call ptr @PyDict_GetItemWithError(ptr %tab, ptr %key)
  ret ptr %hit2
found:
  ret ptr %hit
no:
  ret ptr null
}

; a fused-table entry remembered by the addresses of its key's (op, dtype, source dtype):
; _fusion.TABLE is never cleared and an entry once put is never replaced, so its keys'
; objects and its entries live as long as the process (direct-mapped: op, dtype, source
; dtype, entry)
@lz_fusecache = internal global [$FUSECACHE$ x [4 x ptr]] zeroinitializer

define internal ptr @lz_fuse_slot(ptr %op, ptr %dt, ptr %sdt) {
entry:
  %a = ptrtoint ptr %op to i64
  %h2 = call i64 @lz_mix(i64 %a, ptr %dt)
  %h4 = call i64 @lz_mix(i64 %h2, ptr %sdt)
  %at = call i64 @lz_slot(i64 %h4, i64 $FUSECACHE_MASK$)
  %p = getelementptr [$FUSECACHE$ x [4 x ptr]], ptr @lz_fusecache, i64 0, i64 %at
  ret ptr %p
}

; the numpy dtype and the item size an operand of entry %e is read in: the source
; dtype's, or (%branch: where's second and third operands) the result's
define internal ptr @lz_operand_descr(ptr %e, i1 %branch) {
  %at = select i1 %branch, i64 1, i64 4
  %d = call ptr @item(ptr %e, i64 %at)
  ret ptr %d
}
define internal i64 @lz_operand_size(ptr %ctx, ptr %e, i1 %branch) {
  %at = select i1 %branch, i64 2, i64 3
  %z = call i64 @eint(ptr %ctx, ptr %e, i64 %at)
  ret i64 %z
}

; ---- %n's building block entry (borrowed), or null: not fusable (an error when set)
define internal ptr @lz_fuse_entry(ptr %ctx, ptr %n) {
entry:
  %scratch = alloca [2 x i64]
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %scalar = call ptr @w(ptr %ctx, i64 $C_SCALAR_OP$)
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %osh = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %op = call ptr @get(ptr %n, i64 %oo)
  %dt = call ptr @get(ptr %n, i64 %od)
  %shape = call ptr @get(ptr %n, i64 %osh)
  %srcs = call ptr @get(ptr %n, i64 %osr)
  ; (held: the Python function asked on a miss may let another thread evaluate %n)
  call void @Py_IncRef(ptr %srcs)
  %k = call i64 @size(ptr %srcs)
  %k1 = icmp eq i64 %k, 1
  %k2 = icmp eq i64 %k, 2
  %k3 = icmp eq i64 %k, 3
  %k12 = or i1 %k1, %k2
  %arity = or i1 %k12, %k3  ; (three: where, whose entry alone the table gives)
  %cnt = call i64 @small(ptr %ctx, ptr %shape)
  %sized = icmp sge i64 %cnt, 0
  %fits = and i1 %arity, %sized
  br i1 %fits, label %key, label %no
key:
  %s0 = call ptr @item(ptr %srcs, i64 0)
  %sdt = call ptr @get(ptr %s0, i64 %od)
  %cached = call ptr @lz_fuse_slot(ptr %op, ptr %dt, ptr %sdt)
  %ck0 = getelementptr ptr, ptr %cached, i64 0
  %c0 = load ptr, ptr %ck0
  %ck1 = getelementptr ptr, ptr %cached, i64 1
  %c1 = load ptr, ptr %ck1
  %ck2 = getelementptr ptr, ptr %cached, i64 2
  %c2 = load ptr, ptr %ck2
  %m0 = icmp eq ptr %c0, %op
  %m1 = icmp eq ptr %c1, %dt
  %m2 = icmp eq ptr %c2, %sdt
  %m01 = and i1 %m0, %m1
  %hitc = and i1 %m01, %m2
  br i1 %hitc, label %fromcache, label %tuple
fromcache:
  %ck3 = getelementptr ptr, ptr %cached, i64 3
  %ce = load ptr, ptr %ck3
  br label %found
tuple:
  %kt = call ptr (i64, ...) @PyTuple_Pack(i64 3, ptr %op, ptr %dt, ptr %sdt)
  %nokt = icmp eq ptr %kt, null
  br i1 %nokt, label %error, label %find
find:
  %tab = call ptr @w(ptr %ctx, i64 $C_FUSE$)
  %fn = call ptr @w(ptr %ctx, i64 $C_FUSE_MISS$)
  %ek0 = call ptr @lz_table_get(ptr %tab, ptr %fn, ptr %kt)
  call void @Py_DecRef(ptr %kt)
  %nok = icmp eq ptr %ek0, null
  br i1 %nok, label %missed, label %foundkey
missed:
  %err = call i1 @failed()
  br i1 %err, label %error, label %no
foundkey:
  %ek = phi ptr [%ek0, %find]
  ; (remembered by address: the table's keys and entries live as long as the process)
  store ptr %op, ptr %ck0
  store ptr %dt, ptr %ck1
  store ptr %sdt, ptr %ck2
  %ck3k = getelementptr ptr, ptr %cached, i64 3
  store ptr %ek, ptr %ck3k
  br label %found
found:
  %e = phi ptr [%ce, %fromcache], [%ek, %foundkey]
  %isnone = icmp eq ptr %e, %none
  br i1 %isnone, label %no, label %sources
sources:
  ; every source a scalar the region takes, or an array of %n's shape and dtype %sdt
  ; (where's second and third: %n's dtype) whose value, if it has one, is read where it
  ; lies
  %i = phi i64 [0, %found], [%i1, %next]
  %more = icmp slt i64 %i, %k
  br i1 %more, label %src, label %yes
src:
  %s = call ptr @item(ptr %srcs, i64 %i)
  %sop = call ptr @get(ptr %s, i64 %oo)
  %iss = icmp eq ptr %sop, %scalar
  %later = icmp sgt i64 %i, 0
  %branch = and i1 %k3, %later
  %want = select i1 %branch, ptr %dt, ptr %sdt
  %wdescr = call ptr @lz_operand_descr(ptr %e, i1 %branch)
  %wsize = call i64 @lz_operand_size(ptr %ctx, ptr %e, i1 %branch)
  br i1 %iss, label %isscalar, label %array
isscalar:
  %width = call i64 @lz_scalar_bits(ptr %ctx, ptr %s, ptr %scratch)
  %ok = icmp ne i64 %width, 0
  %scd = call ptr @get(ptr %s, i64 %od)
  %scsame = icmp eq ptr %scd, %want
  %scok = and i1 %ok, %scsame
  br i1 %scok, label %next, label %no
array:
  %sd = call ptr @get(ptr %s, i64 %od)
  %samed = icmp eq ptr %sd, %want
  br i1 %samed, label %shapes, label %no
shapes:
  %ssh = call ptr @get(ptr %s, i64 %osh)
  %eq = call i32 @PyObject_RichCompareBool(ptr %ssh, ptr %shape, i32 2)
  %eqerr = icmp slt i32 %eq, 0
  br i1 %eqerr, label %error, label %shaped
shaped:
  %same = icmp eq i32 %eq, 1
  br i1 %same, label %valued, label %no
valued:
  %v = call ptr @get(ptr %s, i64 %ov)
  %hasv = icmp ne ptr %v, %none
  br i1 %hasv, label %plain, label %viewed
plain:
  %dp = call ptr @lz_plain(ptr %ctx, ptr %v, ptr %wdescr, i64 %cnt)
  %isplain = icmp ne ptr %dp, null
  br i1 %isplain, label %next, label %no
viewed:
  ; a view the steps pass has no value: fused when it reads its base where it lies
  %views = call ptr @w(ptr %ctx, i64 $C_VIEWS$)
  %vw = call i32 @PySet_Contains(ptr %views, ptr %sop)
  %vwerr = icmp slt i32 %vw, 0
  br i1 %vwerr, label %error, label %viewtest
viewtest:
  %isview = icmp eq i32 %vw, 1
  br i1 %isview, label %sliced, label %next
sliced:
  %sp = call ptr @lz_slice(ptr %ctx, ptr %s, ptr %wdescr, i64 %cnt, i64 %wsize)
  %isslice = icmp ne ptr %sp, null
  br i1 %isslice, label %next, label %broadcast
broadcast:
  ; or a broadcast of an array that has its value by then (lz_broadcast gives the view
  ; one when the region runs), or a reshape of one (read where it lies)
  %bok = call i1 @lz_broadcastable(ptr %ctx, ptr %s)
  %rok = call i1 @lz_reshaped(ptr %ctx, ptr %s)
  %either = or i1 %bok, %rok
  br i1 %either, label %next, label %no
next:
  %i1 = add i64 %i, 1
  br label %sources
yes:
  call void @Py_DecRef(ptr %srcs)
  ret ptr %e
no:
  call void @Py_DecRef(ptr %srcs)
  ret ptr null
error:
  call void @Py_DecRef(ptr %srcs)
  ret ptr null
}

; the position of %s among the plan's nodes before %i, or -1
define internal i64 @lz_find(ptr %p, ptr %s, i64 %i) {
entry:
  br label %loop
loop:
  %j = phi i64 [%i, %entry], [%j1, %next]
  %more = icmp sgt i64 %j, 0
  br i1 %more, label %body, label %none
body:
  %j1 = sub i64 %j, 1
  %q = call ptr @plp(ptr %p, i64 $P_NODE$, i64 %j1)
  %hit = icmp eq ptr %q, %s
  br i1 %hit, label %found, label %next
next:
  br label %loop
found:
  ret i64 %j1
none:
  ret i64 -1
}

; ---- the plan of the %count nodes at %data (the steps' order), %root last: 1 when a
; region was found, 0 when none, -1 on error
define internal i32 @lz_fuse_plan(ptr %ctx, ptr %data, i64 %count, ptr %root, ptr %p) {
entry:
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  br label %init
init:
  %i = phi i64 [0, %entry], [%i1, %initbody]
  %imore = icmp slt i64 %i, %count
  br i1 %imore, label %initbody, label %scan
initbody:
  %slot = getelementptr ptr, ptr %data, i64 %i
  %n = load ptr, ptr %slot
  call void @psp(ptr %p, i64 $P_NODE$, i64 %i, ptr %n)
  call void @ps(ptr %p, i64 $P_KIND$, i64 %i, i64 0)
  call void @ps(ptr %p, i64 $P_CONS$, i64 %i, i64 -1)
  call void @ps(ptr %p, i64 $P_OCC$, i64 %i, i64 0)
  call void @ps(ptr %p, i64 $P_ENT$, i64 %i, i64 0)
  call void @ps(ptr %p, i64 $P_REG$, i64 %i, i64 -1)
  call void @ps(ptr %p, i64 $P_SRC0$, i64 %i, i64 -1)
  call void @ps(ptr %p, i64 $P_SRC1$, i64 %i, i64 -1)
  call void @ps(ptr %p, i64 $P_SRC2$, i64 %i, i64 -1)
  %i1 = add i64 %i, 1
  br label %init
scan:
  ; entries, sources' positions, consumers and occurrences
  %a = phi i64 [0, %init], [%a1, %scanned]
  %amore = icmp slt i64 %a, %count
  br i1 %amore, label %scanbody, label %decide0
scanbody:
  %na = call ptr @plp(ptr %p, i64 $P_NODE$, i64 %a)
  %e = call ptr @lz_fuse_entry(ptr %ctx, ptr %na)
  %noe = icmp eq ptr %e, null
  br i1 %noe, label %noentry, label %entered
noentry:
  %err = call i1 @failed()
  br i1 %err, label %error, label %srcscan
entered:
  call void @psp(ptr %p, i64 $P_ENT$, i64 %a, ptr %e)
  br label %srcscan
srcscan:
  %srcs = call ptr @get(ptr %na, i64 %osr)
  %k = call i64 @size(ptr %srcs)
  br label %sloop
sloop:
  %j = phi i64 [0, %srcscan], [%j1, %snext]
  %smore = icmp slt i64 %j, %k
  br i1 %smore, label %sbody, label %scanned
sbody:
  %s = call ptr @item(ptr %srcs, i64 %j)
  %at = call i64 @lz_find(ptr %p, ptr %s, i64 %a)
  %found = icmp sge i64 %at, 0
  br i1 %found, label %counted, label %snext
counted:
  %first = icmp eq i64 %j, 0
  %second = icmp eq i64 %j, 1
  br i1 %first, label %src0, label %maybe1
src0:
  call void @ps(ptr %p, i64 $P_SRC0$, i64 %a, i64 %at)
  br label %occ
maybe1:
  br i1 %second, label %src1, label %maybe2
src1:
  call void @ps(ptr %p, i64 $P_SRC1$, i64 %a, i64 %at)
  br label %occ
maybe2:
  %third = icmp eq i64 %j, 2
  br i1 %third, label %src2, label %occ
src2:
  call void @ps(ptr %p, i64 $P_SRC2$, i64 %a, i64 %at)
  br label %occ
occ:
  %o = call i64 @pl(ptr %p, i64 $P_OCC$, i64 %at)
  %o1 = add i64 %o, 1
  call void @ps(ptr %p, i64 $P_OCC$, i64 %at, i64 %o1)
  %c = call i64 @pl(ptr %p, i64 $P_CONS$, i64 %at)
  %cnone = icmp eq i64 %c, -1
  %cself = icmp eq i64 %c, %a
  %keep = or i1 %cnone, %cself
  %nc = select i1 %keep, i64 %a, i64 -2
  call void @ps(ptr %p, i64 $P_CONS$, i64 %at, i64 %nc)
  br label %snext
snext:
  %j1 = add i64 %j, 1
  br label %sloop
scanned:
  %a1 = add i64 %a, 1
  br label %scan
decide0:
  ; from the root down: fused into its consumer's region when that is fused too, it is
  ; its one consumer and nothing but its consumer and the order holds it
  %last = sub i64 %count, 1
  br label %decide
decide:
  %b = phi i64 [%last, %decide0], [%b0, %decided]
  %any = phi i1 [0, %decide0], [%any1, %decided]
  %bmore = icmp sge i64 %b, 0
  br i1 %bmore, label %dbody, label %done
dbody:
  %b0 = sub i64 %b, 1
  %eb = call i64 @pl(ptr %p, i64 $P_ENT$, i64 %b)
  %fus = icmp ne i64 %eb, 0
  br i1 %fus, label %fusable, label %decided
fusable:
  %nb = call ptr @plp(ptr %p, i64 $P_NODE$, i64 %b)
  %isroot = icmp eq ptr %nb, %root
  br i1 %isroot, label %region, label %consumer
consumer:
  %cb = call i64 @pl(ptr %p, i64 $P_CONS$, i64 %b)
  %onec = icmp sge i64 %cb, 0
  br i1 %onec, label %ckind, label %region
ckind:
  %ck = call i64 @pl(ptr %p, i64 $P_KIND$, i64 %cb)
  %cfused = icmp ne i64 %ck, 0
  br i1 %cfused, label %refs, label %region
refs:
  %rc = load i64, ptr %nb  ; (ob_refcnt)
  %ob = call i64 @pl(ptr %p, i64 $P_OCC$, i64 %b)
  %want = add i64 %ob, 1
  %alone = icmp eq i64 %rc, %want
  br i1 %alone, label %inner, label %region
inner:
  call void @ps(ptr %p, i64 $P_KIND$, i64 %b, i64 1)
  %cr = call i64 @pl(ptr %p, i64 $P_REG$, i64 %cb)
  call void @ps(ptr %p, i64 $P_REG$, i64 %b, i64 %cr)
  br label %decided
region:
  call void @ps(ptr %p, i64 $P_KIND$, i64 %b, i64 2)
  call void @ps(ptr %p, i64 $P_REG$, i64 %b, i64 %b)
  br label %decided
decided:
  %any1 = phi i1 [%any, %dbody], [1, %inner], [1, %region]
  br label %decide
done:
  %r = zext i1 %any to i32
  ret i32 %r
error:
  ret i32 -1
}

; one register per fused node but the root, and per scalar operand
define internal i64 @lz_registers(ptr %ctx, ptr %p, i64 %r) {
entry:
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %scalar = call ptr @w(ptr %ctx, i64 $C_SCALAR_OP$)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %next]
  %count = phi i64 [0, %entry], [%c2, %next]
  %more = icmp sle i64 %i, %r
  br i1 %more, label %body, label %done
body:
  %reg = call i64 @pl(ptr %p, i64 $P_REG$, i64 %i)
  %mine = icmp eq i64 %reg, %r
  br i1 %mine, label %member, label %skip
member:
  %notroot = icmp ne i64 %i, %r
  %own = zext i1 %notroot to i64
  %n = call ptr @plp(ptr %p, i64 $P_NODE$, i64 %i)
  %srcs = call ptr @get(ptr %n, i64 %osr)
  %k = call i64 @size(ptr %srcs)
  %s0 = call ptr @item(ptr %srcs, i64 0)
  %op0 = call ptr @get(ptr %s0, i64 %oo)
  %sc0 = icmp eq ptr %op0, %scalar
  %n0 = zext i1 %sc0 to i64
  %two = icmp sge i64 %k, 2
  br i1 %two, label %second, label %counted
second:
  %s1 = call ptr @item(ptr %srcs, i64 1)
  %op1 = call ptr @get(ptr %s1, i64 %oo)
  %sc1 = icmp eq ptr %op1, %scalar
  %n1 = zext i1 %sc1 to i64
  %three = icmp eq i64 %k, 3
  br i1 %three, label %third, label %counted
third:
  %s2 = call ptr @item(ptr %srcs, i64 2)
  %op2 = call ptr @get(ptr %s2, i64 %oo)
  %sc2 = icmp eq ptr %op2, %scalar
  %n2 = zext i1 %sc2 to i64
  %n12 = add i64 %n1, %n2
  br label %counted
counted:
  %m1 = phi i64 [0, %member], [%n1, %second], [%n12, %third]
  %c0 = add i64 %count, %own
  %c1 = add i64 %c0, %n0
  %cm = add i64 %c1, %m1
  br label %next
skip:
  br label %next
next:
  %c2 = phi i64 [%cm, %counted], [%count, %skip]
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret i64 %count
}

; a block register filled with a scalar's bits (%width 4: a float32's, else 8 bytes)
define internal void @lz_fill(ptr %reg, i64 %b64, i64 %width) {
entry:
  %w4 = icmp eq i64 %width, 4
  br i1 %w4, label %single, label %loop
single:
  %b32 = trunc i64 %b64 to i32
  br label %loop32
loop32:
  %j = phi i64 [0, %single], [%j1, %body32]
  %more32 = icmp slt i64 %j, $FUSE_BLOCK$
  br i1 %more32, label %body32, label %done
body32:
  %at32 = getelementptr i32, ptr %reg, i64 %j
  store i32 %b32, ptr %at32
  %j1 = add i64 %j, 1
  br label %loop32
loop:
  %i = phi i64 [0, %entry], [%i1, %body]
  %more = icmp slt i64 %i, $FUSE_BLOCK$
  br i1 %more, label %body, label %done
body:
  %at = getelementptr i64, ptr %reg, i64 %i
  store i64 %b64, ptr %at
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret void
}

; a register not used before in the region (the next of %regs, counted in %nextreg)
define internal ptr @lz_new_reg(ptr %regs, ptr %nextreg) {
entry:
  %k = load i64, ptr %nextreg
  %k1 = add i64 %k, 1
  store i64 %k1, ptr %nextreg
  %off = mul i64 %k, $FUSE_REG_BYTES$
  %reg = getelementptr i8, ptr %regs, i64 %off
  ret ptr %reg
}

; the block register of the scalar leaf %s (lz_scalar_bits takes it): one per distinct
; scalar in a region (a chain's repeated literal fills one), found in %scal's rows of
; (bits, width, register), %nscal of them
define internal ptr @lz_scalar_reg(ptr %ctx, ptr %s, ptr %scal, ptr %nscal, ptr %regs, ptr %nextreg) {
entry:
  %bits = alloca [2 x i64]
  store [2 x i64] zeroinitializer, ptr %bits
  %width = call i64 @lz_scalar_bits(ptr %ctx, ptr %s, ptr %bits)
  %key = load i64, ptr %bits
  %n = load i64, ptr %nscal
  br label %search
search:
  %i = phi i64 [0, %entry], [%i1, %differ]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %look, label %new
look:
  %row = mul i64 %i, 3
  %kp = getelementptr i64, ptr %scal, i64 %row
  %k = load i64, ptr %kp
  %wp = getelementptr i64, ptr %kp, i64 1
  %w = load i64, ptr %wp
  %samek = icmp eq i64 %k, %key
  %samew = icmp eq i64 %w, %width
  %same = and i1 %samek, %samew
  %i1 = add i64 %i, 1
  br i1 %same, label %found, label %differ
differ:
  br label %search
found:
  %rp = getelementptr i64, ptr %kp, i64 2
  %r = load ptr, ptr %rp
  ret ptr %r
new:
  %reg = call ptr @lz_new_reg(ptr %regs, ptr %nextreg)
  call void @lz_fill(ptr %reg, i64 %key, i64 %width)
  %nrow = mul i64 %n, 3
  %np = getelementptr i64, ptr %scal, i64 %nrow
  store i64 %key, ptr %np
  %nwp = getelementptr i64, ptr %np, i64 1
  store i64 %width, ptr %nwp
  %nrp = getelementptr i64, ptr %np, i64 2
  store ptr %reg, ptr %nrp
  %n1 = add i64 %n, 1
  store i64 %n1, ptr %nscal
  ret ptr %reg
}

; a fused source's register free again once its one consumer (at %at, -1: none) is laid
; out: a later node of the region writes it (the block's instructions run in order)
define internal void @lz_free_reg(ptr %p, i64 %at, ptr %free, ptr %nfree) {
entry:
  %inplan = icmp sge i64 %at, 0
  br i1 %inplan, label %kind, label %done
kind:
  %k = call i64 @pl(ptr %p, i64 $P_KIND$, i64 %at)
  %fused = icmp eq i64 %k, 1
  br i1 %fused, label %push, label %done
push:
  %r = call ptr @plp(ptr %p, i64 $P_OCC$, i64 %at)
  %n = load i64, ptr %nfree
  %slot = getelementptr ptr, ptr %free, i64 %n
  store ptr %r, ptr %slot
  %n1 = add i64 %n, 1
  store i64 %n1, ptr %nfree
  br label %done
done:
  ret void
}

; where operand %s of a fused node reads: (base, byte step per element); base null
; when a value is not read where it lies (then the walk takes over)
define internal {ptr, i64} @lz_operand(ptr %ctx, ptr %p, ptr %s, i64 %at, i64 %size, ptr %descr, i64 %count, ptr %regs, ptr %nextreg, ptr %scal, ptr %nscal) {
entry:
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %scalar = call ptr @w(ptr %ctx, i64 $C_SCALAR_OP$)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %op = call ptr @get(ptr %s, i64 %oo)
  %iss = icmp eq ptr %op, %scalar
  br i1 %iss, label %scalarreg, label %array
scalarreg:
  %reg = call ptr @lz_scalar_reg(ptr %ctx, ptr %s, ptr %scal, ptr %nscal, ptr %regs, ptr %nextreg)
  %r0 = insertvalue {ptr, i64} undef, ptr %reg, 0
  %r1 = insertvalue {ptr, i64} %r0, i64 0, 1
  ret {ptr, i64} %r1
array:
  %inplan = icmp sge i64 %at, 0
  br i1 %inplan, label %fused, label %value
fused:
  %kind = call i64 @pl(ptr %p, i64 $P_KIND$, i64 %at)
  %isin = icmp eq i64 %kind, 1
  br i1 %isin, label %register, label %value
register:
  %rq = call ptr @plp(ptr %p, i64 $P_OCC$, i64 %at)  ; (its register, set when it was laid out)
  %q0 = insertvalue {ptr, i64} undef, ptr %rq, 0
  %q1 = insertvalue {ptr, i64} %q0, i64 0, 1
  ret {ptr, i64} %q1
value:
  %v = call ptr @get(ptr %s, i64 %ov)
  %hasv = icmp ne ptr %v, %none
  br i1 %hasv, label %plain, label %view
view:
  %sp = call ptr @lz_slice(ptr %ctx, ptr %s, ptr %descr, i64 %count, i64 %size)
  %issl = icmp ne ptr %sp, null
  br i1 %issl, label %viewed, label %reshape
reshape:
  %rp = call ptr @lz_reshaped_data(ptr %ctx, ptr %s, ptr %descr, i64 %count)
  %isre = icmp ne ptr %rp, null
  br i1 %isre, label %viewed, label %bcast
bcast:
  %bp = call ptr @lz_broadcast(ptr %ctx, ptr %s, ptr %descr, i64 %count)
  br label %viewed
viewed:
  %vp = phi ptr [%sp, %view], [%rp, %reshape], [%bp, %bcast]
  %w0 = insertvalue {ptr, i64} undef, ptr %vp, 0
  %w1 = insertvalue {ptr, i64} %w0, i64 %size, 1
  ret {ptr, i64} %w1
plain:
  %d = call ptr @lz_plain(ptr %ctx, ptr %v, ptr %descr, i64 %count)
  %v0 = insertvalue {ptr, i64} undef, ptr %d, 0
  %v1 = insertvalue {ptr, i64} %v0, i64 %size, 1
  ret {ptr, i64} %v1
no:
  %n0 = insertvalue {ptr, i64} undef, ptr null, 0
  %n1 = insertvalue {ptr, i64} %n0, i64 0, 1
  ret {ptr, i64} %n1
}

; ---- the region whose root is at %r run: the number of its nodes; 0 when a value it reads is not where it
; can be read (nothing ran: the walk takes over); -1 on error
define internal i32 @lz_region(ptr %ctx, ptr %p, i64 %r) {
entry:
  %ins = alloca [$FUSE_INS$ x i64]  ; per fused node: fn, out, out step, a, a step, b, b step, c, c step
  %nextreg = alloca i64
  store i64 0, ptr %nextreg
  %free = alloca [$FUSE_MAX$ x ptr]  ; registers whose node's consumer is laid out
  %nfree = alloca i64
  store i64 0, ptr %nfree
  %scal = alloca [$FUSE_MAX$ x [9 x i64]]  ; lz_scalar_reg's rows, three per node at most
  %nscal = alloca i64
  store i64 0, ptr %nscal
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %osh = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %root = call ptr @plp(ptr %p, i64 $P_NODE$, i64 %r)
  %rent = call ptr @plp(ptr %p, i64 $P_ENT$, i64 %r)
  %shape = call ptr @get(ptr %root, i64 %osh)
  %total = call i64 @small(ptr %ctx, ptr %shape)
  %npdt = call ptr @item(ptr %rent, i64 1)
  %empty = call ptr @w(ptr %ctx, i64 $C_EMPTY_FN$)
  %out = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %empty, ptr %shape, ptr %npdt, ptr null)
  %noout = icmp eq ptr %out, null
  br i1 %noout, label %error, label %outdata
outdata:
  %od0 = call ptr @lz_plain(ptr %ctx, ptr %out, ptr %npdt, i64 %total)
  %badout = icmp eq ptr %od0, null
  br i1 %badout, label %stopout, label %alloc
alloc:
  %nregs = call i64 @lz_registers(ptr %ctx, ptr %p, i64 %r)
  %bytes = mul i64 %nregs, $FUSE_REG_BYTES$
  %regs = call ptr @PyMem_Realloc(ptr null, i64 %bytes)
  %noregs = icmp eq ptr %regs, null
  br i1 %noregs, label %nomemory, label %layout
layout:
  ; the fused nodes in order, each an instruction; registers first to the nodes
  br label %lloop
lloop:
  %i = phi i64 [0, %layout], [%i1, %lnext]
  %m = phi i64 [0, %layout], [%m2, %lnext]
  %lmore = icmp sle i64 %i, %r
  br i1 %lmore, label %lbody, label %run
lbody:
  %reg = call i64 @pl(ptr %p, i64 $P_REG$, i64 %i)
  %mine = icmp eq i64 %reg, %r
  br i1 %mine, label %member, label %lskip
member:
  %n = call ptr @plp(ptr %p, i64 $P_NODE$, i64 %i)
  ; (evaluated by another thread meanwhile: its sources are gone, the walk goes on)
  %still = call i1 @computed(ptr %ctx, ptr %n)
  br i1 %still, label %entered, label %stop
entered:
  %e = call ptr @plp(ptr %p, i64 $P_ENT$, i64 %i)
  %fn = call i64 @eint(ptr %ctx, ptr %e, i64 0)
  %ssize = call i64 @eint(ptr %ctx, ptr %e, i64 3)
  %sdescr = call ptr @item(ptr %e, i64 4)
  %isr = icmp eq i64 %i, %r
  br i1 %isr, label %tooutput, label %toregister
tooutput:
  %osize = call i64 @eint(ptr %ctx, ptr %e, i64 2)
  br label %dest
toregister:
  %nf = load i64, ptr %nfree
  %hasfree = icmp sgt i64 %nf, 0
  br i1 %hasfree, label %reuse, label %newreg
reuse:
  %nf1 = sub i64 %nf, 1
  store i64 %nf1, ptr %nfree
  %fslot = getelementptr ptr, ptr %free, i64 %nf1
  %rq = load ptr, ptr %fslot
  br label %assigned
newreg:
  %rn = call ptr @lz_new_reg(ptr %regs, ptr %nextreg)
  br label %assigned
assigned:
  %rp = phi ptr [%rq, %reuse], [%rn, %newreg]
  call void @psp(ptr %p, i64 $P_OCC$, i64 %i, ptr %rp)
  br label %dest
dest:
  %dbase = phi ptr [%od0, %tooutput], [%rp, %assigned]
  %dstep = phi i64 [%osize, %tooutput], [0, %assigned]
  %srcs = call ptr @get(ptr %n, i64 %osr)
  %kk = call i64 @size(ptr %srcs)
  %s0 = call ptr @item(ptr %srcs, i64 0)
  %at0 = call i64 @pl(ptr %p, i64 $P_SRC0$, i64 %i)
  %a = call {ptr, i64} @lz_operand(ptr %ctx, ptr %p, ptr %s0, i64 %at0, i64 %ssize, ptr %sdescr, i64 %total, ptr %regs, ptr %nextreg, ptr %scal, ptr %nscal)
  %abase = extractvalue {ptr, i64} %a, 0
  %astep = extractvalue {ptr, i64} %a, 1
  %noa = icmp eq ptr %abase, null
  br i1 %noa, label %stop, label %second
second:
  %two = icmp sge i64 %kk, 2
  ; (where's second and third operands are of the result's dtype)
  %branch = icmp eq i64 %kk, 3
  %bsize = call i64 @lz_operand_size(ptr %ctx, ptr %e, i1 %branch)
  %bdescr = call ptr @lz_operand_descr(ptr %e, i1 %branch)
  br i1 %two, label %operand1, label %store
operand1:
  %s1 = call ptr @item(ptr %srcs, i64 1)
  %at1 = call i64 @pl(ptr %p, i64 $P_SRC1$, i64 %i)
  %b = call {ptr, i64} @lz_operand(ptr %ctx, ptr %p, ptr %s1, i64 %at1, i64 %bsize, ptr %bdescr, i64 %total, ptr %regs, ptr %nextreg, ptr %scal, ptr %nscal)
  %bb = extractvalue {ptr, i64} %b, 0
  %bs = extractvalue {ptr, i64} %b, 1
  %nob = icmp eq ptr %bb, null
  br i1 %nob, label %stop, label %third
third:
  br i1 %branch, label %operand2, label %store
operand2:
  %s2 = call ptr @item(ptr %srcs, i64 2)
  %at2 = call i64 @pl(ptr %p, i64 $P_SRC2$, i64 %i)
  %cop = call {ptr, i64} @lz_operand(ptr %ctx, ptr %p, ptr %s2, i64 %at2, i64 %bsize, ptr %bdescr, i64 %total, ptr %regs, ptr %nextreg, ptr %scal, ptr %nscal)
  %cb = extractvalue {ptr, i64} %cop, 0
  %cs = extractvalue {ptr, i64} %cop, 1
  %noc = icmp eq ptr %cb, null
  br i1 %noc, label %stop, label %store
store:
  %bbase = phi ptr [null, %second], [%bb, %third], [%bb, %operand2]
  %bstep = phi i64 [0, %second], [%bs, %third], [%bs, %operand2]
  %at1s = phi i64 [-1, %second], [%at1, %third], [%at1, %operand2]
  %cbase = phi ptr [null, %second], [null, %third], [%cb, %operand2]
  %cstep = phi i64 [0, %second], [0, %third], [%cs, %operand2]
  %at2s = phi i64 [-1, %second], [-1, %third], [%at2, %operand2]
  ; (a source read twice, x * x, is released once)
  call void @lz_free_reg(ptr %p, i64 %at0, ptr %free, ptr %nfree)
  %twice = icmp eq i64 %at1s, %at0
  %at1r = select i1 %twice, i64 -1, i64 %at1s
  call void @lz_free_reg(ptr %p, i64 %at1r, ptr %free, ptr %nfree)
  %again0 = icmp eq i64 %at2s, %at0
  %again1 = icmp eq i64 %at2s, %at1s
  %again = or i1 %again0, %again1
  %at2r = select i1 %again, i64 -1, i64 %at2s
  call void @lz_free_reg(ptr %p, i64 %at2r, ptr %free, ptr %nfree)
  %w0 = mul i64 %m, 9
  %pi = getelementptr i64, ptr %ins, i64 %w0
  store i64 %fn, ptr %pi
  %p1 = getelementptr i64, ptr %pi, i64 1
  %dbi = ptrtoint ptr %dbase to i64
  store i64 %dbi, ptr %p1
  %p2 = getelementptr i64, ptr %pi, i64 2
  store i64 %dstep, ptr %p2
  %p3 = getelementptr i64, ptr %pi, i64 3
  %abi = ptrtoint ptr %abase to i64
  store i64 %abi, ptr %p3
  %p4 = getelementptr i64, ptr %pi, i64 4
  store i64 %astep, ptr %p4
  %p5 = getelementptr i64, ptr %pi, i64 5
  %bbi = ptrtoint ptr %bbase to i64
  store i64 %bbi, ptr %p5
  %p6 = getelementptr i64, ptr %pi, i64 6
  store i64 %bstep, ptr %p6
  %p7 = getelementptr i64, ptr %pi, i64 7
  %cbi = ptrtoint ptr %cbase to i64
  store i64 %cbi, ptr %p7
  %p8 = getelementptr i64, ptr %pi, i64 8
  store i64 %cstep, ptr %p8
  %m1 = add i64 %m, 1
  br label %lnext
lskip:
  br label %lnext
lnext:
  %m2 = phi i64 [%m1, %store], [%m, %lskip]
  %i1 = add i64 %i, 1
  br label %lloop
run:
  ; block by block, every instruction in turn
  br label %blocks
blocks:
  %at = phi i64 [0, %run], [%next_at, %blockdone]
  %bmore = icmp slt i64 %at, %total
  br i1 %bmore, label %block, label %ran
block:
  %left = sub i64 %total, %at
  %full = icmp sgt i64 %left, $FUSE_BLOCK$
  %cnt = select i1 %full, i64 $FUSE_BLOCK$, i64 %left
  br label %iloop
iloop:
  %t = phi i64 [0, %block], [%t1, %ibody]
  %tmore = icmp slt i64 %t, %m
  br i1 %tmore, label %ibody, label %blockdone
ibody:
  %w = mul i64 %t, 9
  %q = getelementptr i64, ptr %ins, i64 %w
  %f = load i64, ptr %q
  %fp = inttoptr i64 %f to ptr
  %q1 = getelementptr i64, ptr %q, i64 1
  %xd = load i64, ptr %q1
  %q2 = getelementptr i64, ptr %q, i64 2
  %xds = load i64, ptr %q2
  %q3 = getelementptr i64, ptr %q, i64 3
  %xa = load i64, ptr %q3
  %q4 = getelementptr i64, ptr %q, i64 4
  %xas = load i64, ptr %q4
  %q5 = getelementptr i64, ptr %q, i64 5
  %xb = load i64, ptr %q5
  %q6 = getelementptr i64, ptr %q, i64 6
  %xbs = load i64, ptr %q6
  %q7 = getelementptr i64, ptr %q, i64 7
  %xc = load i64, ptr %q7
  %q8 = getelementptr i64, ptr %q, i64 8
  %xcs = load i64, ptr %q8
  %dd = mul i64 %xds, %at
  %da = mul i64 %xas, %at
  %db = mul i64 %xbs, %at
  %dc = mul i64 %xcs, %at
  %pd0 = inttoptr i64 %xd to ptr
  %pd = getelementptr i8, ptr %pd0, i64 %dd
  %pa0 = inttoptr i64 %xa to ptr
  %pa = getelementptr i8, ptr %pa0, i64 %da
  %pb0 = inttoptr i64 %xb to ptr
  %pb = getelementptr i8, ptr %pb0, i64 %db
  %pc0 = inttoptr i64 %xc to ptr
  %pc = getelementptr i8, ptr %pc0, i64 %dc
  call void %fp(ptr %pd, ptr %pa, ptr %pb, ptr %pc, i64 %cnt)
  %t1 = add i64 %t, 1
  br label %iloop
blockdone:
  %next_at = add i64 %at, $FUSE_BLOCK$
  br label %blocks
ran:
  call void @PyMem_Free(ptr %regs)
  ; its value, under the leaf id of its dtype and shape
  %dt = call ptr @get(ptr %root, i64 %od)
  %leaf = call ptr @lz_leaf_id_cached(ptr %ctx, ptr %dt, ptr %shape)
  %noleaf = icmp eq ptr %leaf, null
  br i1 %noleaf, label %errorout, label %evaluate
evaluate:
  %st = call i32 @lz_evaluated(ptr %ctx, ptr %root, ptr %out, ptr %leaf, i1 0)
  call void @Py_DecRef(ptr %leaf)
  %everr = icmp slt i32 %st, 0
  br i1 %everr, label %error, label %counts
counts:
  %cp = call ptr @w(ptr %ctx, i64 $C_FUSED$)
  %c = load i64, ptr %cp
  %c1 = add i64 %c, %m
  store i64 %c1, ptr %cp
  %mi = trunc i64 %m to i32
  ret i32 %mi
stop:
  call void @PyMem_Free(ptr %regs)
  br label %stopout
stopout:
  call void @Py_DecRef(ptr %out)
  ret i32 0
nomemory:
  %nm = call ptr @PyErr_NoMemory()
  br label %errorout
errorout:
  call void @Py_DecRef(ptr %out)
  br label %error
error:
  ret i32 -1
}
