; Shape ops, casts, reductions, where and creation recorded natively: the fast paths of
; lazyarray/_manipulation.py (reshape, broadcast_to, permute_dims, expand_dims, astype,
; concat), _creation.py (zeros, ones), Array's shape,
; _statistical.py (sum, mean, max, min over one int axis or all of them) and
; _searching.py (where of three arrays of one shape) make their node, signature and
; Array here, through record.ll's lz_make, instead of 0.7-1.6 us of Python.  Each
; lz_<op> returns the Array, NULL with an error set, or NULL without one for anything it
; does not take; the entry then calls the Python function with the same arguments, which
; decides and raises as before.  Appended to backend/recorder.ll.

declare {i64, i1} @llvm.sadd.with.overflow.i64(i64, i64)

; ---- the node of Array %x, a new reference (held: a size's __eq__ or ir.structure_id
; may run Python code that rebinds x._node); NULL, no error, when %x is not an Array
define internal ptr @lz_node_of(ptr %ctx, ptr %x) {
entry:
  %at = call ptr @w(ptr %ctx, i64 $C_ARRAY_T$)
  %t = call ptr @type(ptr %x)
  %isa = icmp eq ptr %t, %at
  br i1 %isa, label %node, label %no
node:
  ; (an Array made without a node, object.__new__(Array): the Python function says so)
  %on = call i64 @wi(ptr %ctx, i64 $C_A_NODE$)
  %n = call ptr @get(ptr %x, i64 %on)
  %unset = icmp eq ptr %n, null
  br i1 %unset, label %no, label %held
held:
  call void @Py_IncRef(ptr %n)
  ret ptr %n
no:
  ret ptr null
}

define internal i1 @is_tuple(ptr %ctx, ptr %o) {
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %t = call ptr @type(ptr %o)
  %r = icmp eq ptr %t, %tt
  ret i1 %r
}

; ---- %n's shape when it is a tuple (borrowed), else NULL
define internal ptr @lz_shape_of(ptr %ctx, ptr %n) {
  %osh = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %sh = call ptr @get(ptr %n, i64 %osh)
  %ist = call i1 @is_tuple(ptr %ctx, ptr %sh)
  %r = select i1 %ist, ptr %sh, ptr null
  ret ptr %r
}

; ---- item %i of a new tuple %t set to %v (stolen)
define internal void @lz_put(ptr %t, i64 %i, ptr %v) {
  %off = mul i64 %i, 8
  %o = add i64 %off, $TUPLE_ITEMS$
  call void @set(ptr %t, i64 %o, ptr %v)
  ret void
}

; ---- a copy of tuple %t with item %pos replaced by %v (%mode 0), %v inserted before
; item %pos (%mode 1), or item %pos removed (%mode -1; %v unused); %v borrowed: new
; reference, NULL on error
define internal ptr @lz_splice(ptr %t, i64 %pos, ptr %v, i64 %mode) {
entry:
  %r = call i64 @size(ptr %t)
  %len = add i64 %r, %mode
  %nt = call ptr @PyTuple_New(i64 %len)
  %no = icmp eq ptr %nt, null
  %removing = icmp eq i64 %mode, -1
  br i1 %no, label %fail, label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %put]
  %more = icmp slt i64 %i, %len
  br i1 %more, label %body, label %done
body:
  %before = icmp slt i64 %i, %pos
  %at = icmp eq i64 %i, %pos
  %keepv = xor i1 %removing, 1
  %isv = and i1 %at, %keepv
  br i1 %isv, label %put, label %old
old:
  ; before %pos: item i; after it: item i - mode (removed: i + 1, inserted: i - 1)
  %shift = select i1 %before, i64 0, i64 %mode
  %j = sub i64 %i, %shift
  %o = call ptr @item(ptr %t, i64 %j)
  br label %put
put:
  %x = phi ptr [%v, %body], [%o, %old]
  call void @Py_IncRef(ptr %x)
  call void @lz_put(ptr %nt, i64 %i, ptr %x)
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret ptr %nt
fail:
  ret ptr null
}

; ---- the product of tuple %shape's entries other than -1 when each is a Python int of
; at least -1 (the count of -1 entries in *%holes, the last one's index in *%at); -2 for
; anything else, or a product beyond int64
define internal i64 @lz_prod(ptr %ctx, ptr %shape, ptr %holes, ptr %at) {
entry:
  %ok = alloca i1
  store i64 0, ptr %holes
  store i64 -1, ptr %at
  %r = call i64 @size(ptr %shape)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %next]
  %p = phi i64 [1, %entry], [%p1, %next]
  %more = icmp slt i64 %i, %r
  br i1 %more, label %look, label %done
look:
  %d = call ptr @item(ptr %shape, i64 %i)
  %v = call i64 @lz_int(ptr %ctx, ptr %d, ptr %ok)
  %isok = load i1, ptr %ok
  br i1 %isok, label %sign, label %bad
sign:
  %hole = icmp eq i64 %v, -1
  br i1 %hole, label %count, label %nonneg
count:
  %h = load i64, ptr %holes
  %h1 = add i64 %h, 1
  store i64 %h1, ptr %holes
  store i64 %i, ptr %at
  br label %next
nonneg:
  %neg = icmp slt i64 %v, 0
  br i1 %neg, label %bad, label %mul
mul:
  %m = call {i64, i1} @llvm.smul.with.overflow.i64(i64 %p, i64 %v)
  %mv = extractvalue {i64, i1} %m, 0
  %mo = extractvalue {i64, i1} %m, 1
  br i1 %mo, label %bad, label %next
next:
  %p1 = phi i64 [%p, %count], [%mv, %mul]
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret i64 %p
bad:
  ret i64 -2
}

; ---- the node of %op (the context's) over %n alone, with %n's dtype (or %dtype where
; not NULL), %shape (stolen) and %arg, and its Array; %n (held by the caller) released.
; NULL as lz_make returns it
define internal ptr @lz_make1(ptr %ctx, ptr %n, ptr %dtype, ptr %shape, ptr %arg) {
  %op = call ptr @w(ptr %ctx, i64 $C_OP$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %own = call ptr @get(ptr %n, i64 %od)
  %nod = icmp eq ptr %dtype, null
  %d = select i1 %nod, ptr %own, ptr %dtype
  %srcs = call ptr (i64, ...) @PyTuple_Pack(i64 1, ptr %n)
  %r = call ptr @lz_make(ptr %ctx, ptr %op, ptr %d, ptr %shape, ptr %srcs, ptr %arg)
  call void @Py_DecRef(ptr %n)
  ret ptr %r
}

; ---- the tuple (%k,) of the context's table (the signatures' leaf positions), or NULL
; past its end
define internal ptr @lz_one_axis(ptr %ctx, i64 %k) {
  %max = call i64 @wi(ptr %ctx, i64 $C_MAX_LEAVES$)
  %in = icmp ule i64 %k, %max
  br i1 %in, label %get, label %no
get:
  %tab = call ptr @w(ptr %ctx, i64 $C_WHERE$)
  %p = getelementptr i64, ptr %tab, i64 %k
  %t = load ptr, ptr %p
  ret ptr %t
no:
  ret ptr null
}

; ---- reshape(x, shape) (RESHAPE): an Array of Python int sizes to a tuple of Python
; ints of the same total size (one may be -1), other than its own shape, as
; _quick_reshape records it
define internal ptr @lz_reshape(ptr %ctx, ptr %x, ptr %shape) {
entry:
  %holes = alloca i64
  %at = alloca i64
  %n = call ptr @lz_node_of(ptr %ctx, ptr %x)
  %non = icmp eq ptr %n, null
  br i1 %non, label %no, label %tuple
tuple:
  %sh = call ptr @lz_shape_of(ptr %ctx, ptr %n)
  %nosh = icmp eq ptr %sh, null
  %ist = call i1 @is_tuple(ptr %ctx, ptr %shape)
  %nost = xor i1 %ist, 1
  %notuples = or i1 %nosh, %nost
  br i1 %notuples, label %python, label %source
source:
  %total = call i64 @lz_prod(ptr %ctx, ptr %sh, ptr %holes, ptr %at)
  %h0 = load i64, ptr %holes
  %tbad = icmp slt i64 %total, 0
  %th = icmp ne i64 %h0, 0
  %srcbad = or i1 %tbad, %th
  br i1 %srcbad, label %python, label %target
target:
  %known = call i64 @lz_prod(ptr %ctx, ptr %shape, ptr %holes, ptr %at)
  %h = load i64, ptr %holes
  %kbad = icmp slt i64 %known, 0
  %many = icmp sgt i64 %h, 1
  %tgtbad = or i1 %kbad, %many
  br i1 %tgtbad, label %python, label %which
which:
  %one = icmp eq i64 %h, 1
  br i1 %one, label %fill, label %exact
exact:
  %eq = icmp eq i64 %known, %total
  br i1 %eq, label %keep, label %python
keep:
  call void @Py_IncRef(ptr %shape)
  br label %same
fill:
  %zero = icmp eq i64 %known, 0
  br i1 %zero, label %python, label %divide
divide:
  %rem = srem i64 %total, %known
  %whole = icmp eq i64 %rem, 0
  br i1 %whole, label %filled, label %python
filled:
  %q = sdiv i64 %total, %known
  %qo = call ptr @PyLong_FromLongLong(i64 %q)
  %noq = icmp eq ptr %qo, null
  br i1 %noq, label %error, label %splice
splice:
  %pos = load i64, ptr %at
  %ns = call ptr @lz_splice(ptr %shape, i64 %pos, ptr %qo, i64 0)
  call void @Py_DecRef(ptr %qo)
  %nons = icmp eq ptr %ns, null
  br i1 %nons, label %error, label %same
same:
  ; its own shape: the Python function returns a new Array of the same node
  %new = phi ptr [%shape, %keep], [%ns, %splice]
  %c = call i32 @PyObject_RichCompareBool(ptr %new, ptr %sh, i32 2)
  switch i32 %c, label %errornew [i32 0, label %make
                                  i32 1, label %dropnew]
make:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %r = call ptr @lz_make1(ptr %ctx, ptr %n, ptr null, ptr %new, ptr %none)
  ret ptr %r
dropnew:
  call void @Py_DecRef(ptr %new)
  br label %python
errornew:
  call void @Py_DecRef(ptr %new)
  br label %error
error:
  call void @Py_DecRef(ptr %n)
  ret ptr null
python:
  call void @Py_DecRef(ptr %n)
  br label %no
no:
  ret ptr null
}

; ---- broadcast_to(x, shape) (BROADCAST): an Array of Python int sizes to a tuple of
; Python ints it broadcasts to, other than its own shape, as _quick_broadcast records it
define internal ptr @lz_broadcast_to(ptr %ctx, ptr %x, ptr %shape) {
entry:
  %ok = alloca i1
  %n = call ptr @lz_node_of(ptr %ctx, ptr %x)
  %non = icmp eq ptr %n, null
  br i1 %non, label %no, label %tuple
tuple:
  %sh = call ptr @lz_shape_of(ptr %ctx, ptr %n)
  %nosh = icmp eq ptr %sh, null
  %ist = call i1 @is_tuple(ptr %ctx, ptr %shape)
  %nost = xor i1 %ist, 1
  %notuples = or i1 %nosh, %nost
  br i1 %notuples, label %python, label %ranks
ranks:
  %r = call i64 @size(ptr %shape)
  %k = call i64 @size(ptr %sh)
  %lead = sub i64 %r, %k
  %short = icmp slt i64 %lead, 0
  %grown = icmp ne i64 %lead, 0
  br i1 %short, label %python, label %loop
loop:
  %i = phi i64 [0, %ranks], [%i1, %next]
  %diff = phi i1 [%grown, %ranks], [%diff1, %next]
  %more = icmp slt i64 %i, %r
  br i1 %more, label %look, label %done
look:
  %to = call ptr @item(ptr %shape, i64 %i)
  %t = call i64 @lz_int(ptr %ctx, ptr %to, ptr %ok)
  %tok = load i1, ptr %ok
  %tneg = icmp slt i64 %t, 0
  %tnok = xor i1 %tok, 1
  %tbad = or i1 %tnok, %tneg
  br i1 %tbad, label %python, label %inner
inner:
  %own = icmp sge i64 %i, %lead
  br i1 %own, label %src, label %next
src:
  %j = sub i64 %i, %lead
  %so = call ptr @item(ptr %sh, i64 %j)
  %s = call i64 @lz_int(ptr %ctx, ptr %so, ptr %ok)
  %sok = load i1, ptr %ok
  %eq = icmp eq i64 %s, %t
  %unit = icmp eq i64 %s, 1
  %fits = or i1 %eq, %unit
  %good = and i1 %sok, %fits
  br i1 %good, label %ne, label %python
ne:
  %changes = xor i1 %eq, 1
  %d1 = or i1 %diff, %changes
  br label %next
next:
  %diff1 = phi i1 [%diff, %inner], [%d1, %ne]
  %i1 = add i64 %i, 1
  br label %loop
done:
  br i1 %diff, label %make, label %python
make:
  call void @Py_IncRef(ptr %shape)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %res = call ptr @lz_make1(ptr %ctx, ptr %n, ptr null, ptr %shape, ptr %none)
  ret ptr %res
python:
  call void @Py_DecRef(ptr %n)
  br label %no
no:
  ret ptr null
}

; ---- permute_dims(x, axes) (PERMUTE): a tuple of Python ints, a permutation of the
; Array's axes other than the identity, as the Python function records the view and
; links it to its base (_views.track_permuted, through lz_link as x.T)
define internal ptr @lz_permute(ptr %ctx, ptr %x, ptr %axes) {
entry:
  %ok = alloca i1
  %n = call ptr @lz_node_of(ptr %ctx, ptr %x)
  %non = icmp eq ptr %n, null
  br i1 %non, label %no, label %tuple
tuple:
  %sh = call ptr @lz_shape_of(ptr %ctx, ptr %n)
  %nosh = icmp eq ptr %sh, null
  %ist = call i1 @is_tuple(ptr %ctx, ptr %axes)
  %nost = xor i1 %ist, 1
  %notuples = or i1 %nosh, %nost
  br i1 %notuples, label %python, label %ranks
ranks:
  %nd = call i64 @size(ptr %sh)
  %na = call i64 @size(ptr %axes)
  %same = icmp eq i64 %nd, %na
  %fits = icmp ule i64 %nd, 63
  %rankok = and i1 %same, %fits
  br i1 %rankok, label %alloc, label %python
alloc:
  %nsh = call ptr @PyTuple_New(i64 %nd)
  %nonsh = icmp eq ptr %nsh, null
  br i1 %nonsh, label %error, label %loop
loop:
  %i = phi i64 [0, %alloc], [%i1, %fill]
  %seen = phi i64 [0, %alloc], [%seen1, %fill]
  %ident = phi i1 [1, %alloc], [%ident1, %fill]
  %more = icmp slt i64 %i, %nd
  br i1 %more, label %look, label %done
look:
  %ao = call ptr @item(ptr %axes, i64 %i)
  %a = call i64 @lz_int(ptr %ctx, ptr %ao, ptr %ok)
  %aok = load i1, ptr %ok
  %lo = icmp sge i64 %a, 0
  %hi = icmp slt i64 %a, %nd
  %inr = and i1 %lo, %hi
  %valid = and i1 %aok, %inr
  br i1 %valid, label %new, label %pythonsh
new:
  %bit = shl i64 1, %a
  %had = and i64 %seen, %bit
  %again = icmp ne i64 %had, 0
  br i1 %again, label %pythonsh, label %fill
fill:
  %seen1 = or i64 %seen, %bit
  %here = icmp eq i64 %a, %i
  %ident1 = and i1 %ident, %here
  %d = call ptr @item(ptr %sh, i64 %a)
  call void @Py_IncRef(ptr %d)
  call void @lz_put(ptr %nsh, i64 %i, ptr %d)
  %i1 = add i64 %i, 1
  br label %loop
done:
  ; the identity: the Python function returns a new Array of the same node
  br i1 %ident, label %pythonsh, label %make
make:
  %out = call ptr @lz_make1(ptr %ctx, ptr %n, ptr null, ptr %nsh, ptr %axes)
  %noout = icmp eq ptr %out, null
  br i1 %noout, label %none, label %link
link:
  %tag = call ptr @w(ptr %ctx, i64 $C_PERMUTE$)
  %trk = call ptr @w(ptr %ctx, i64 $C_TRACK$)
  %v = call ptr @lz_link(ptr %ctx, ptr %x, ptr %tag, ptr %axes, ptr %out, ptr %trk)
  ret ptr %v
pythonsh:
  call void @Py_DecRef(ptr %nsh)
  br label %python
error:
  call void @Py_DecRef(ptr %n)
  br label %none
python:
  call void @Py_DecRef(ptr %n)
  br label %no
no:
  br label %none
none:
  ret ptr null
}

; ---- expand_dims(x, axis) (EXPAND): one axis, a Python int (%axis NULL: 0), as the
; Python function records it
define internal ptr @lz_expand(ptr %ctx, ptr %x, ptr %axis) {
entry:
  %ok = alloca i1
  %n = call ptr @lz_node_of(ptr %ctx, ptr %x)
  %non = icmp eq ptr %n, null
  br i1 %non, label %no, label %tuple
tuple:
  %sh = call ptr @lz_shape_of(ptr %ctx, ptr %n)
  %nosh = icmp eq ptr %sh, null
  br i1 %nosh, label %python, label %given
given:
  %noaxis = icmp eq ptr %axis, null
  br i1 %noaxis, label %range, label %int
int:
  %v = call i64 @lz_int(ptr %ctx, ptr %axis, ptr %ok)
  %vok = load i1, ptr %ok
  br i1 %vok, label %range, label %python
range:
  %a = phi i64 [0, %given], [%v, %int]
  %nd = call i64 @size(ptr %sh)
  %nd1 = add i64 %nd, 1
  %lo = sub i64 0, %nd1
  %ge = icmp sge i64 %a, %lo
  %le = icmp sle i64 %a, %nd
  %inr = and i1 %ge, %le
  br i1 %inr, label %norm, label %python
norm:
  %neg = icmp slt i64 %a, 0
  %up = add i64 %a, %nd1
  %pos = select i1 %neg, i64 %up, i64 %a
  %arg = call ptr @lz_one_axis(ptr %ctx, i64 %pos)
  %noarg = icmp eq ptr %arg, null
  br i1 %noarg, label %python, label %shape
shape:
  %one = call ptr @w(ptr %ctx, i64 $C_ONE$)
  %nsh = call ptr @lz_splice(ptr %sh, i64 %pos, ptr %one, i64 1)
  %nonsh = icmp eq ptr %nsh, null
  br i1 %nonsh, label %error, label %make
make:
  %r = call ptr @lz_make1(ptr %ctx, ptr %n, ptr null, ptr %nsh, ptr %arg)
  ret ptr %r
error:
  call void @Py_DecRef(ptr %n)
  ret ptr null
python:
  call void @Py_DecRef(ptr %n)
  br label %no
no:
  ret ptr null
}

; ---- astype(x, dtype) (ASTYPE): to another dtype of the namespace, not complex to
; real (the Python function raises), as the Python function records it
define internal ptr @lz_astype(ptr %ctx, ptr %x, ptr %dtype) {
entry:
  %n = call ptr @lz_node_of(ptr %ctx, ptr %x)
  %non = icmp eq ptr %n, null
  br i1 %non, label %no, label %known
known:
  %e = call ptr @lz_entry(ptr %ctx, ptr %dtype)
  %noe = icmp eq ptr %e, null
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %d = call ptr @get(ptr %n, i64 %od)
  %same = icmp eq ptr %d, %dtype
  %skip = or i1 %noe, %same
  br i1 %skip, label %python, label %complex
complex:
  %cx = call ptr @w(ptr %ctx, i64 $C_COMPLEX$)
  %from = call i32 @PySet_Contains(ptr %cx, ptr %d)
  %to = call i32 @PySet_Contains(ptr %cx, ptr %dtype)
  ; (errors cannot happen: the dtypes hash by identity)
  %fromc = icmp eq i32 %from, 1
  %toc = icmp eq i32 %to, 1
  %real = xor i1 %toc, 1
  %refused = and i1 %fromc, %real
  br i1 %refused, label %python, label %shape
shape:
  %sh = call ptr @lz_shape_of(ptr %ctx, ptr %n)
  %nosh = icmp eq ptr %sh, null
  br i1 %nosh, label %python, label %make
make:
  call void @Py_IncRef(ptr %sh)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %r = call ptr @lz_make1(ptr %ctx, ptr %n, ptr %dtype, ptr %sh, ptr %none)
  ret ptr %r
python:
  call void @Py_DecRef(ptr %n)
  br label %no
no:
  ret ptr null
}

; ---- sum, mean, max or min (REDUCE, the op in C_OP) of an Array of a dtype in
; C_NUMERIC over every axis (%axis NULL or None; not with keepdims) or one Python int
; axis; %keep NULL, True or False; as _statistical._fast records it
define internal ptr @lz_reduce(ptr %ctx, ptr %x, ptr %axis, ptr %keep) {
entry:
  %ok = alloca i1
  %n = call ptr @lz_node_of(ptr %ctx, ptr %x)
  %non = icmp eq ptr %n, null
  br i1 %non, label %no, label %own
own:
  %own_set = call ptr @w(ptr %ctx, i64 $C_NUMERIC$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %d = call ptr @get(ptr %n, i64 %od)
  %isown = call i32 @PySet_Contains(ptr %own_set, ptr %d)
  %yes = icmp eq i32 %isown, 1
  %sh = call ptr @lz_shape_of(ptr %ctx, ptr %n)
  %hassh = icmp ne ptr %sh, null
  %go = and i1 %yes, %hassh
  br i1 %go, label %keepdims, label %python
keepdims:
  %tr = call ptr @w(ptr %ctx, i64 $C_TRUE$)
  %fa = call ptr @w(ptr %ctx, i64 $C_FALSE$)
  %nokeep = icmp eq ptr %keep, null
  %kobj = select i1 %nokeep, ptr %fa, ptr %keep
  %kt = icmp eq ptr %kobj, %tr
  %kf = icmp eq ptr %kobj, %fa
  %kbool = or i1 %kt, %kf
  br i1 %kbool, label %axes, label %python
axes:
  %nd = call i64 @size(ptr %sh)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %noaxis = icmp eq ptr %axis, null
  %isnone = icmp eq ptr %axis, %none
  %every = or i1 %noaxis, %isnone
  br i1 %every, label %all, label %one
all:
  ; over every axis of a rank in the table, without keepdims (its shape of ones: Python)
  %some = icmp ugt i64 %nd, 0
  %max = call i64 @wi(ptr %ctx, i64 $C_MAX_RANK_AXES$)
  %fit = icmp ule i64 %nd, %max
  %plain = xor i1 %kt, 1
  %rankok = and i1 %some, %fit
  %allok = and i1 %rankok, %plain
  br i1 %allok, label %alltab, label %python
alltab:
  %tab = call ptr @w(ptr %ctx, i64 $C_ALL_AXES$)
  %ap = getelementptr i64, ptr %tab, i64 %nd
  %all_axes = load ptr, ptr %ap
  %empty = call ptr @w(ptr %ctx, i64 $C_EMPTY$)
  call void @Py_IncRef(ptr %empty)
  br label %make
one:
  %v = call i64 @lz_int(ptr %ctx, ptr %axis, ptr %ok)
  %vok = load i1, ptr %ok
  %lo = sub i64 0, %nd
  %ge = icmp sge i64 %v, %lo
  %lt = icmp slt i64 %v, %nd
  %inr = and i1 %ge, %lt
  %valid = and i1 %vok, %inr
  br i1 %valid, label %norm, label %python
norm:
  %neg = icmp slt i64 %v, 0
  %up = add i64 %v, %nd
  %a = select i1 %neg, i64 %up, i64 %v
  %one_axis = call ptr @lz_one_axis(ptr %ctx, i64 %a)
  %noone = icmp eq ptr %one_axis, null
  br i1 %noone, label %python, label %oneshape
oneshape:
  ; keepdims: size 1 at the axis; else the axis removed
  %unit = call ptr @w(ptr %ctx, i64 $C_ONE$)
  %mode = select i1 %kt, i64 0, i64 -1
  %nsh = call ptr @lz_splice(ptr %sh, i64 %a, ptr %unit, i64 %mode)
  %nonsh = icmp eq ptr %nsh, null
  br i1 %nonsh, label %error, label %make
make:
  %shape = phi ptr [%empty, %alltab], [%nsh, %oneshape]
  %which = phi ptr [%all_axes, %alltab], [%one_axis, %oneshape]
  %arg = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %which, ptr %kobj)
  %noarg = icmp eq ptr %arg, null
  br i1 %noarg, label %errorshape, label %record
record:
  %r = call ptr @lz_make1(ptr %ctx, ptr %n, ptr null, ptr %shape, ptr %arg)
  call void @Py_DecRef(ptr %arg)
  ret ptr %r
errorshape:
  call void @Py_DecRef(ptr %shape)
  br label %error
error:
  call void @Py_DecRef(ptr %n)
  ret ptr null
python:
  call void @Py_DecRef(ptr %n)
  br label %no
no:
  ret ptr null
}

; ---- where(condition, x1, x2) (WHERE): a bool Array and two Arrays of its shape and one
; dtype (neither a scalar leaf), as _quick_where records it
define internal ptr @lz_where(ptr %ctx, ptr %c, ptr %x1, ptr %x2) {
entry:
  %nc = call ptr @lz_node_of(ptr %ctx, ptr %c)
  %nonc = icmp eq ptr %nc, null
  br i1 %nonc, label %no, label %first
first:
  %n1 = call ptr @lz_node_of(ptr %ctx, ptr %x1)
  %non1 = icmp eq ptr %n1, null
  br i1 %non1, label %pythonc, label %second
second:
  %n2 = call ptr @lz_node_of(ptr %ctx, ptr %x2)
  %non2 = icmp eq ptr %n2, null
  br i1 %non2, label %python1, label %dtypes
dtypes:
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %dc = call ptr @get(ptr %nc, i64 %od)
  %d1 = call ptr @get(ptr %n1, i64 %od)
  %d2 = call ptr @get(ptr %n2, i64 %od)
  %bool = call ptr @w(ptr %ctx, i64 $C_BOOL$)
  %isbool = icmp eq ptr %dc, %bool
  %same = icmp eq ptr %d1, %d2
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %op1 = call ptr @get(ptr %n1, i64 %oo)
  %op2 = call ptr @get(ptr %n2, i64 %oo)
  %sop = call ptr @w(ptr %ctx, i64 $C_SCALAR_OP$)
  %s1 = icmp ne ptr %op1, %sop
  %s2 = icmp ne ptr %op2, %sop
  %arrays = and i1 %s1, %s2
  %kinds = and i1 %isbool, %same
  %go = and i1 %kinds, %arrays
  br i1 %go, label %shapes, label %python2
shapes:
  %osh = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %shc = call ptr @get(ptr %nc, i64 %osh)
  %sh1 = call ptr @get(ptr %n1, i64 %osh)
  %sh2 = call ptr @get(ptr %n2, i64 %osh)
  call void @Py_IncRef(ptr %shc)
  %e1 = call i32 @PyObject_RichCompareBool(ptr %sh1, ptr %shc, i32 2)
  switch i32 %e1, label %errorsh [i32 0, label %pythonsh
                                  i32 1, label %shape2]
shape2:
  %e2 = call i32 @PyObject_RichCompareBool(ptr %sh2, ptr %shc, i32 2)
  switch i32 %e2, label %errorsh [i32 0, label %pythonsh
                                  i32 1, label %make]
make:
  %op = call ptr @w(ptr %ctx, i64 $C_OP$)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %srcs = call ptr (i64, ...) @PyTuple_Pack(i64 3, ptr %nc, ptr %n1, ptr %n2)
  %r = call ptr @lz_make(ptr %ctx, ptr %op, ptr %d1, ptr %shc, ptr %srcs, ptr %none)
  call void @Py_DecRef(ptr %nc)
  call void @Py_DecRef(ptr %n1)
  call void @Py_DecRef(ptr %n2)
  ret ptr %r
errorsh:
  call void @Py_DecRef(ptr %shc)
  call void @Py_DecRef(ptr %nc)
  call void @Py_DecRef(ptr %n1)
  call void @Py_DecRef(ptr %n2)
  ret ptr null
pythonsh:
  call void @Py_DecRef(ptr %shc)
  br label %python2
python2:
  call void @Py_DecRef(ptr %n2)
  br label %python1
python1:
  call void @Py_DecRef(ptr %n1)
  br label %pythonc
pythonc:
  call void @Py_DecRef(ptr %nc)
  br label %no
no:
  ret ptr null
}

; ---- x.shape (SHAPE, a property's getter): the node's shape itself when its sizes are all
; Python ints (a tuple: nothing can change it), as the Python getter makes it
define internal ptr @lz_shape(ptr %ctx, ptr %x) {
entry:
  %n = call ptr @lz_node_of(ptr %ctx, ptr %x)
  %non = icmp eq ptr %n, null
  br i1 %non, label %no, label %tuple
tuple:
  %sh = call ptr @lz_shape_of(ptr %ctx, ptr %n)
  call void @Py_DecRef(ptr %n)
  %nosh = icmp eq ptr %sh, null
  br i1 %nosh, label %no, label %start
start:
  %r = call i64 @size(ptr %sh)
  %it = call ptr @w(ptr %ctx, i64 $C_INT_T$)
  br label %loop
loop:
  %i = phi i64 [0, %start], [%i1, %next]
  %more = icmp slt i64 %i, %r
  br i1 %more, label %look, label %done
look:
  %d = call ptr @item(ptr %sh, i64 %i)
  %dt = call ptr @type(ptr %d)
  %isint = icmp eq ptr %dt, %it
  br i1 %isint, label %next, label %no
next:
  %i1 = add i64 %i, 1
  br label %loop
done:
  call void @Py_IncRef(ptr %sh)
  ret ptr %sh
no:
  ret ptr null
}

; ---- zeros(shape) and ones(shape) (FILL, numpy's function in C_FILL_FN), with the
; keywords dtype (a dtype of the namespace; absent or None: float64) and device (absent
; or None): a Python int or a tuple of them, none below 0, of fewer than C_QUICK
; elements; numpy's array as a data leaf, as _creation._quick_fill makes it
define internal ptr @lz_creation(ptr %ctx, ptr %shape, ptr %dtype, ptr %device) {
entry:
  %holes = alloca i64
  %at = alloca i64
  %ok = alloca i1
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %nodev = icmp eq ptr %device, null
  %devnone = icmp eq ptr %device, %none
  %anydev = or i1 %nodev, %devnone
  br i1 %anydev, label %pick, label %no
pick:
  %nod = icmp eq ptr %dtype, null
  %dnone = icmp eq ptr %dtype, %none
  %dflt = or i1 %nod, %dnone
  %f64 = call ptr @w(ptr %ctx, i64 $C_F64$)
  %d = select i1 %dflt, ptr %f64, ptr %dtype
  %e = call ptr @lz_entry(ptr %ctx, ptr %d)
  %noe = icmp eq ptr %e, null
  br i1 %noe, label %no, label %kind
kind:
  %npp = getelementptr i64, ptr %e, i64 5
  %npd = load ptr, ptr %npp
  %ist = call i1 @is_tuple(ptr %ctx, ptr %shape)
  br i1 %ist, label %tuple, label %int
tuple:
  %tc = call i64 @lz_prod(ptr %ctx, ptr %shape, ptr %holes, ptr %at)
  %h = load i64, ptr %holes
  %tneg = icmp slt i64 %tc, 0
  %th = icmp ne i64 %h, 0
  %tbad = or i1 %tneg, %th
  br i1 %tbad, label %no, label %tkeep
tkeep:
  call void @Py_IncRef(ptr %shape)
  br label %count
int:
  %v = call i64 @lz_int(ptr %ctx, ptr %shape, ptr %ok)
  %vok = load i1, ptr %ok
  %vpos = icmp sge i64 %v, 0
  %good = and i1 %vok, %vpos
  br i1 %good, label %pack, label %no
pack:
  %one = call ptr (i64, ...) @PyTuple_Pack(i64 1, ptr %shape)
  %noone = icmp eq ptr %one, null
  br i1 %noone, label %error, label %count
count:
  %sh = phi ptr [%shape, %tkeep], [%one, %pack]
  %c = phi i64 [%tc, %tkeep], [%v, %pack]
  %quick = call i64 @wi(ptr %ctx, i64 $C_QUICK$)
  %small = icmp slt i64 %c, %quick
  br i1 %small, label %value, label %nosh
value:
  %fn = call ptr @w(ptr %ctx, i64 $C_FILL_FN$)
  %val = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %sh, ptr %npd, ptr null)
  %noval = icmp eq ptr %val, null
  br i1 %noval, label %errorsh, label %leafid
leafid:
  %lid = call ptr @lz_leaf_id_cached(ptr %ctx, ptr %d, ptr %sh)
  %nolid = icmp eq ptr %lid, null
  br i1 %nolid, label %errorval, label %data
data:
  %arr = call ptr @lz_data(ptr %ctx, ptr %d, ptr %sh, ptr %val, ptr %lid)
  call void @Py_DecRef(ptr %lid)
  call void @Py_DecRef(ptr %val)
  ret ptr %arr
errorval:
  call void @Py_DecRef(ptr %val)
  br label %errorsh
errorsh:
  call void @Py_DecRef(ptr %sh)
  br label %error
error:
  ret ptr null
nosh:
  call void @Py_DecRef(ptr %sh)
  br label %no
no:
  ret ptr null
}

; ---- lz_leaf_id for %dt and %shape, remembered for the last pair met in this context
; (C_LAST_DTYPE, C_LAST_SHAPE: held, so neither address is reused meanwhile; a shape
; literal is the same tuple on every call) until the ids are cleared: new reference, NULL
; on error
define internal ptr @lz_leaf_id_cached(ptr %ctx, ptr %dt, ptr %shape) {
entry:
  %ld = call ptr @w(ptr %ctx, i64 $C_LAST_DTYPE$)
  %ls = call ptr @w(ptr %ctx, i64 $C_LAST_SHAPE$)
  %sd = icmp eq ptr %ld, %dt
  %ss = icmp eq ptr %ls, %shape
  ; (ir.clear_ids gives every leaf a new id)
  %gen = call i64 @lz_ids_gen(ptr %ctx)
  %lg = call i64 @wi(ptr %ctx, i64 $C_LAST_GEN$)
  %sg = icmp eq i64 %gen, %lg
  %same = and i1 %sd, %ss
  %hit = and i1 %same, %sg
  br i1 %hit, label %cached, label %miss
cached:
  %c = call ptr @w(ptr %ctx, i64 $C_LAST_LID$)
  call void @Py_IncRef(ptr %c)
  ret ptr %c
miss:
  %lid = call ptr @lz_leaf_id(ptr %ctx, ptr %dt, ptr %shape)
  %nolid = icmp eq ptr %lid, null
  br i1 %nolid, label %done, label %keep
keep:
  ; (the dtypes live as long as the package: only the shape and the id are held)
  %ol = call ptr @w(ptr %ctx, i64 $C_LAST_LID$)
  call void @Py_IncRef(ptr %shape)
  call void @Py_IncRef(ptr %lid)
  %pd = getelementptr i64, ptr %ctx, i64 $C_LAST_DTYPE$
  store ptr %dt, ptr %pd
  %ps = getelementptr i64, ptr %ctx, i64 $C_LAST_SHAPE$
  store ptr %shape, ptr %ps
  %pl = getelementptr i64, ptr %ctx, i64 $C_LAST_LID$
  store ptr %lid, ptr %pl
  %pg = getelementptr i64, ptr %ctx, i64 $C_LAST_GEN$
  store i64 %gen, ptr %pg
  %hadold = icmp ne ptr %ls, null
  br i1 %hadold, label %release, label %done
release:
  call void @Py_DecRef(ptr %ls)
  call void @Py_DecRef(ptr %ol)
  br label %done
done:
  ret ptr %lid
}

; ---- concat(arrays, axis=...) (CONCAT): a list or tuple of two or more Arrays of one
; dtype and rank whose sizes agree but along axis (a Python int; absent: 0), Python ints
; along it, as _quick_concat records it
define internal ptr @lz_concat(ptr %ctx, ptr %arrays, ptr %axis) {
entry:
  %ok = alloca i1
  %lt = call ptr @w(ptr %ctx, i64 $C_LIST_T$)
  %t = call ptr @type(ptr %arrays)
  %islist = icmp eq ptr %t, %lt
  %istuple = call i1 @is_tuple(ptr %ctx, ptr %arrays)
  %seq = or i1 %islist, %istuple
  br i1 %seq, label %count, label %no
count:
  %k = call i64 @size(ptr %arrays)
  %two = icmp sge i64 %k, 2
  br i1 %two, label %axisarg, label %no
axisarg:
  %noaxis = icmp eq ptr %axis, null
  br i1 %noaxis, label %first, label %int
int:
  %av = call i64 @lz_int(ptr %ctx, ptr %axis, ptr %ok)
  %aok = load i1, ptr %ok
  br i1 %aok, label %first, label %no
first:
  %a0 = phi i64 [0, %axisarg], [%av, %int]
  %x0 = call ptr @lz_seq_item(ptr %ctx, ptr %arrays, i1 %islist, i64 0)
  %n0 = call ptr @lz_node_of(ptr %ctx, ptr %x0)
  %non0 = icmp eq ptr %n0, null
  br i1 %non0, label %no, label %rank
rank:
  %sh0 = call ptr @lz_shape_of(ptr %ctx, ptr %n0)
  %nosh0 = icmp eq ptr %sh0, null
  br i1 %nosh0, label %python0, label %range
range:
  %nd = call i64 @size(ptr %sh0)
  %lo = sub i64 0, %nd
  %ge = icmp sge i64 %a0, %lo
  %ltnd = icmp slt i64 %a0, %nd
  %inr = and i1 %ge, %ltnd
  br i1 %inr, label %alloc, label %python0
alloc:
  %neg = icmp slt i64 %a0, 0
  %up = add i64 %a0, %nd
  %a = select i1 %neg, i64 %up, i64 %a0
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %d = call ptr @get(ptr %n0, i64 %od)
  %srcs = call ptr @PyTuple_New(i64 %k)
  %nosrcs = icmp eq ptr %srcs, null
  br i1 %nosrcs, label %error0, label %loop
loop:
  %j = phi i64 [0, %alloc], [%j1, %agreed]
  %total = phi i64 [0, %alloc], [%tv, %agreed]
  ; (a size's __eq__ may run Python code: the list's length is read again each time)
  %len = call i64 @size(ptr %arrays)
  %inlist = icmp slt i64 %j, %len
  %more = icmp slt i64 %j, %k
  br i1 %more, label %check, label %done
check:
  br i1 %inlist, label %look, label %pythonsrcs
look:
  %xj = call ptr @lz_seq_item(ptr %ctx, ptr %arrays, i1 %islist, i64 %j)
  %nj = call ptr @lz_node_of(ptr %ctx, ptr %xj)
  %nonj = icmp eq ptr %nj, null
  br i1 %nonj, label %pythonsrcs, label %held
held:
  call void @lz_put(ptr %srcs, i64 %j, ptr %nj)
  %dj = call ptr @get(ptr %nj, i64 %od)
  %samed = icmp eq ptr %dj, %d
  %shj = call ptr @lz_shape_of(ptr %ctx, ptr %nj)
  %hasj = icmp ne ptr %shj, null
  %dsh = and i1 %samed, %hasj
  br i1 %dsh, label %rankj, label %pythonsrcs
rankj:
  %ndj = call i64 @size(ptr %shj)
  %samer = icmp eq i64 %ndj, %nd
  br i1 %samer, label %along, label %pythonsrcs
along:
  %so = call ptr @item(ptr %shj, i64 %a)
  %s = call i64 @lz_int(ptr %ctx, ptr %so, ptr %ok)
  %sok = load i1, ptr %ok
  %snn = icmp sge i64 %s, 0
  %sgood = and i1 %sok, %snn
  br i1 %sgood, label %add, label %pythonsrcs
add:
  %sum = call {i64, i1} @llvm.sadd.with.overflow.i64(i64 %total, i64 %s)
  %tv = extractvalue {i64, i1} %sum, 0
  %over = extractvalue {i64, i1} %sum, 1
  br i1 %over, label %pythonsrcs, label %dims
dims:
  %i = phi i64 [0, %add], [%i1, %dimnext]
  %dmore = icmp slt i64 %i, %nd
  br i1 %dmore, label %dim, label %agreed
dim:
  %skip = icmp eq i64 %i, %a
  br i1 %skip, label %dimnext, label %compare
compare:
  %p = call ptr @item(ptr %shj, i64 %i)
  %q = call ptr @item(ptr %sh0, i64 %i)
  %eq = call i32 @PyObject_RichCompareBool(ptr %p, ptr %q, i32 2)
  switch i32 %eq, label %errorsrcs [i32 0, label %pythonsrcs
                                    i32 1, label %dimnext]
dimnext:
  %i1 = add i64 %i, 1
  br label %dims
agreed:
  %j1 = add i64 %j, 1
  br label %loop
done:
  %to = call ptr @PyLong_FromLongLong(i64 %total)
  %noto = icmp eq ptr %to, null
  br i1 %noto, label %errorsrcs, label %shape
shape:
  %nsh = call ptr @lz_splice(ptr %sh0, i64 %a, ptr %to, i64 0)
  call void @Py_DecRef(ptr %to)
  %ao = call ptr @PyLong_FromLongLong(i64 %a)
  %op = call ptr @w(ptr %ctx, i64 $C_OP$)
  %noao = icmp eq ptr %ao, null
  br i1 %noao, label %errorshape, label %make
make:
  %r = call ptr @lz_make(ptr %ctx, ptr %op, ptr %d, ptr %nsh, ptr %srcs, ptr %ao)
  call void @Py_DecRef(ptr %ao)
  call void @Py_DecRef(ptr %n0)
  ret ptr %r
errorshape:
  call void @Py_DecRef(ptr %nsh)
  br label %errorsrcs
errorsrcs:
  call void @Py_DecRef(ptr %srcs)
  br label %error0
error0:
  call void @Py_DecRef(ptr %n0)
  ret ptr null
pythonsrcs:
  call void @Py_DecRef(ptr %srcs)
  br label %python0
python0:
  call void @Py_DecRef(ptr %n0)
  br label %no
no:
  ret ptr null
}

; ---- item %i of a list (%islist) or a tuple
define internal ptr @lz_seq_item(ptr %ctx, ptr %s, i1 %islist, i64 %i) {
  br i1 %islist, label %list, label %tuple
list:
  %l = call ptr @litem(ptr %s, i64 %i)
  ret ptr %l
tuple:
  %t = call ptr @item(ptr %s, i64 %i)
  ret ptr %t
}

; ---- the keywords of a call the context names (C_KW0 and C_KW1: "axis" and "keepdims",
; or "dtype" and "device"), their values in %out[0] and %out[1] (NULL where not given):
; 1, or 0 for any other name (or a name that is not the interned string: the Python
; function then takes the call)
define internal i1 @lz_keywords(ptr %ctx, ptr %args, i64 %nargs, ptr %kwnames, ptr %out) {
entry:
  %out1 = getelementptr ptr, ptr %out, i64 1
  store ptr null, ptr %out
  store ptr null, ptr %out1
  %nokw = icmp eq ptr %kwnames, null
  br i1 %nokw, label %yes, label %start
start:
  %k = call i64 @size(ptr %kwnames)
  %axis = call ptr @w(ptr %ctx, i64 $C_KW0$)
  %keep = call ptr @w(ptr %ctx, i64 $C_KW1$)
  br label %loop
loop:
  %i = phi i64 [0, %start], [%i1, %next]
  %more = icmp slt i64 %i, %k
  br i1 %more, label %look, label %yes
look:
  %name = call ptr @item(ptr %kwnames, i64 %i)
  %at = add i64 %nargs, %i
  %vp = getelementptr ptr, ptr %args, i64 %at
  %v = load ptr, ptr %vp
  %isaxis = icmp eq ptr %name, %axis
  %iskeep = icmp eq ptr %name, %keep
  %known = or i1 %isaxis, %iskeep
  br i1 %known, label %store, label %no
store:
  %slot = select i1 %isaxis, ptr %out, ptr %out1
  store ptr %v, ptr %slot
  br label %next
next:
  %i1 = add i64 %i, 1
  br label %loop
yes:
  ret i1 1
no:
  ret i1 0
}

; ---- the module functions of this file (RESHAPE..CONCAT): each one's positional form
; (and expand_dims' axis, the reductions' axis and keepdims by keyword); anything else,
; and whatever an lz_<op> does not take, to the Python function (C_FALLBACK)
define internal ptr @lz_manipulation_entry(ptr %ctx, i64 %kind, ptr %args, i64 %nargs, ptr %kwnames) {
entry:
  %kv = alloca [2 x ptr]
  %kwok = call i1 @lz_keywords(ptr %ctx, ptr %args, i64 %nargs, ptr %kwnames, ptr %kv)
  %some = icmp sgt i64 %nargs, 0
  %go = and i1 %kwok, %some
  br i1 %go, label %which, label %python
which:
  %ax = load ptr, ptr %kv
  %kp = getelementptr ptr, ptr %kv, i64 1
  %kd = load ptr, ptr %kp
  %nokw = icmp eq ptr %kwnames, null
  %x = load ptr, ptr %args
  %one = icmp eq i64 %nargs, 1
  %two = icmp eq i64 %nargs, 2
  %three = icmp eq i64 %nargs, 3
  %two_plain = and i1 %two, %nokw
  %a1p = getelementptr ptr, ptr %args, i64 1
  switch i64 %kind, label %python [i64 $RESHAPE$, label %reshape
                                   i64 $BROADCAST$, label %broadcast
                                   i64 $PERMUTE$, label %permute
                                   i64 $ASTYPE$, label %astype
                                   i64 $EXPAND$, label %expand
                                   i64 $REDUCE$, label %reduce
                                   i64 $WHERE$, label %where
                                   i64 $SHAPE$, label %shape
                                   i64 $FILL$, label %fill
                                   i64 $CONCAT$, label %concat]
fill:
  br i1 %one, label %fill1, label %python
fill1:
  %r9 = call ptr @lz_creation(ptr %ctx, ptr %x, ptr %ax, ptr %kd)
  br label %done
concat:
  ; concat(arrays) or concat(arrays, axis=axis)
  %nokd2 = icmp eq ptr %kd, null
  %concat_ok = and i1 %one, %nokd2
  br i1 %concat_ok, label %concat1, label %python
concat1:
  %r10 = call ptr @lz_concat(ptr %ctx, ptr %x, ptr %ax)
  br label %done
shape:
  %one_plain = and i1 %one, %nokw
  br i1 %one_plain, label %shape1, label %python
shape1:
  %r8 = call ptr @lz_shape(ptr %ctx, ptr %x)
  br label %done
reshape:
  br i1 %two_plain, label %reshape2, label %python
reshape2:
  %rs = load ptr, ptr %a1p
  %r1 = call ptr @lz_reshape(ptr %ctx, ptr %x, ptr %rs)
  br label %done
broadcast:
  br i1 %two_plain, label %broadcast2, label %python
broadcast2:
  %bs = load ptr, ptr %a1p
  %r2 = call ptr @lz_broadcast_to(ptr %ctx, ptr %x, ptr %bs)
  br label %done
permute:
  br i1 %two_plain, label %permute2, label %python
permute2:
  %pa = load ptr, ptr %a1p
  %r3 = call ptr @lz_permute(ptr %ctx, ptr %x, ptr %pa)
  br label %done
astype:
  br i1 %two_plain, label %astype2, label %python
astype2:
  %ad = load ptr, ptr %a1p
  %r4 = call ptr @lz_astype(ptr %ctx, ptr %x, ptr %ad)
  br label %done
expand:
  ; expand_dims(x), (x, axis) or (x, axis=axis)
  %nokd = icmp eq ptr %kd, null
  %byname = and i1 %one, %nokd
  br i1 %byname, label %expand1, label %expandpos
expandpos:
  br i1 %two_plain, label %expand2, label %python
expand2:
  %ea = load ptr, ptr %a1p
  br label %expand1
expand1:
  %eaxis = phi ptr [%ax, %expand], [%ea, %expand2]
  %r5 = call ptr @lz_expand(ptr %ctx, ptr %x, ptr %eaxis)
  br label %done
reduce:
  br i1 %one, label %reduce1, label %python
reduce1:
  %r6 = call ptr @lz_reduce(ptr %ctx, ptr %x, ptr %ax, ptr %kd)
  br label %done
where:
  %three_plain = and i1 %three, %nokw
  br i1 %three_plain, label %where3, label %python
where3:
  %w1 = load ptr, ptr %a1p
  %a2p = getelementptr ptr, ptr %args, i64 2
  %w2 = load ptr, ptr %a2p
  %r7 = call ptr @lz_where(ptr %ctx, ptr %x, ptr %w1, ptr %w2)
  br label %done
done:
  %r = phi ptr [%r1, %reshape2], [%r2, %broadcast2], [%r3, %permute2], [%r4, %astype2],
                [%r5, %expand1], [%r6, %reduce1], [%r7, %where3], [%r8, %shape1],
                [%r9, %fill1], [%r10, %concat1]
  %nor = icmp eq ptr %r, null
  br i1 %nor, label %why, label %ok
ok:
  ret ptr %r
why:
  %err = call i1 @failed()
  br i1 %err, label %error, label %python
error:
  ret ptr null
python:
  %fn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %o = call ptr @PyObject_Vectorcall(ptr %fn, ptr %args, i64 %nargs, ptr %kwnames)
  ret ptr %o
}
