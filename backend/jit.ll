; A jitted function's call natively (JIT_CALL, installed as JitFunction.__call__, a
; METH_FASTCALL method; PREPARED_CALL, Prepared.__call__, the same without the trace):
; lazyarray/_jit.py's loop case, the last call's trace called again
; on numpy arrays and Arrays holding values, its front door run and its outputs made
; Arrays as _program._known_result makes them, instead of about 2 us of Python (the jit
; call's checks, Prepared.__call__ and the results).  The door checks the values' dtypes,
; shapes and layout as the trace's kinds would and returns its FALLBACK without side
; effects; that, and anything else (keywords, a symbolic trace, no door yet, an Array
; without a value), calls the Python method.  Appended to backend/recorder.ll.

; ---- attribute %name (a context word) of %o: new reference, NULL with an error set
define internal ptr @lz_attr(ptr %ctx, ptr %o, i64 %name) {
  %n = call ptr @w(ptr %ctx, i64 %name)
  %v = call ptr @PyObject_GetAttr(ptr %o, ptr %n)
  ret ptr %v
}

; ---- the Array of a data leaf holding %value (borrowed) of dtype %d and %shape (stolen),
; with structure id %lid (borrowed), as Node makes it for a value: NULL on error
define internal ptr @lz_data(ptr %ctx, ptr %d, ptr %shape, ptr %value, ptr %lid) {
entry:
  %vt = call ptr (i64, ...) @PyTuple_Pack(i64 1, ptr %value)
  %novt = icmp eq ptr %vt, null
  br i1 %novt, label %fail, label %sig
sig:
  %never = call ptr @w(ptr %ctx, i64 $C_NEVER$)
  %sg = call ptr (i64, ...) @PyTuple_Pack(i64 3, ptr %lid, ptr %vt, ptr %never)
  call void @Py_DecRef(ptr %vt)
  %nosg = icmp eq ptr %sg, null
  br i1 %nosg, label %fail, label %node
node:
  %dop = call ptr @w(ptr %ctx, i64 $C_DATA_OP$)
  %empty = call ptr @w(ptr %ctx, i64 $C_EMPTY$)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  call void @Py_IncRef(ptr %empty)
  %nd = call ptr @lz_node_arg(ptr %ctx, ptr %dop, ptr %d, ptr %shape, ptr %empty, ptr %none, ptr %value, ptr %sg)
  call void @Py_DecRef(ptr %shape)
  %nond = icmp eq ptr %nd, null
  br i1 %nond, label %error, label %wrap
wrap:
  %arr = call ptr @lz_bare(ptr %ctx, ptr %nd)
  ret ptr %arr
fail:
  call void @Py_DecRef(ptr %shape)
  br label %error
error:
  ret ptr null
}

; ---- a door's output %value as the Array _known_result makes of it with %kind, the
; tuple (dtype, leaf id): NULL on error
define internal ptr @lz_result(ptr %ctx, ptr %value, ptr %kind) {
entry:
  %ist = call i1 @is_tuple(ptr %ctx, ptr %kind)
  br i1 %ist, label %size, label %bad
size:
  %n = call i64 @size(ptr %kind)
  %two = icmp eq i64 %n, 2
  br i1 %two, label %shape, label %bad
shape:
  %sh = call ptr @lz_attr(ptr %ctx, ptr %value, i64 $C_SHAPE_NAME$)
  %nosh = icmp eq ptr %sh, null
  br i1 %nosh, label %error, label %make
make:
  %d = call ptr @item(ptr %kind, i64 0)
  %lid = call ptr @item(ptr %kind, i64 1)
  %r = call ptr @lz_data(ptr %ctx, ptr %d, ptr %sh, ptr %value, ptr %lid)
  ret ptr %r
bad:
  %te = call ptr @w(ptr %ctx, i64 $C_EXCEPTION$)
  call void @PyErr_SetString(ptr %te, ptr @lz_kind_msg)
  br label %error
error:
  ret ptr null
}

declare void @PyErr_SetString(ptr, ptr)

@lazyarray_rec_vctx = dso_local global [$VSTUBS$ x ptr] zeroinitializer

@lz_kind_msg = private constant [59 x i8] c"lazyarray: a door's output kinds are not (dtype, id) pairs\00"

; ---- the Arrays of a door's outputs %out (one value when %single, else a tuple of as
; many as %kinds): new reference, NULL on error
define internal ptr @lz_results(ptr %ctx, ptr %out, ptr %kinds, i1 %single) {
entry:
  %kt = call i1 @is_tuple(ptr %ctx, ptr %kinds)
  br i1 %kt, label %which, label %bad
which:
  %k = call i64 @size(ptr %kinds)
  br i1 %single, label %one, label %many
one:
  %has = icmp sge i64 %k, 1
  br i1 %has, label %one1, label %bad
one1:
  %k0 = call ptr @item(ptr %kinds, i64 0)
  %r1 = call ptr @lz_result(ptr %ctx, ptr %out, ptr %k0)
  ret ptr %r1
many:
  %ot = call i1 @is_tuple(ptr %ctx, ptr %out)
  br i1 %ot, label %count, label %bad
count:
  %m = call i64 @size(ptr %out)
  %same = icmp eq i64 %m, %k
  br i1 %same, label %alloc, label %bad
alloc:
  %t = call ptr @PyTuple_New(i64 %k)
  %not = icmp eq ptr %t, null
  br i1 %not, label %error, label %loop
loop:
  %i = phi i64 [0, %alloc], [%i1, %put]
  %more = icmp slt i64 %i, %k
  br i1 %more, label %body, label %done
body:
  %v = call ptr @item(ptr %out, i64 %i)
  %ki = call ptr @item(ptr %kinds, i64 %i)
  %a = call ptr @lz_result(ptr %ctx, ptr %v, ptr %ki)
  %noa = icmp eq ptr %a, null
  br i1 %noa, label %errort, label %put
put:
  call void @lz_put(ptr %t, i64 %i, ptr %a)
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret ptr %t
errort:
  call void @Py_DecRef(ptr %t)
  br label %error
bad:
  %te = call ptr @w(ptr %ctx, i64 $C_EXCEPTION$)
  call void @PyErr_SetString(ptr %te, ptr @lz_kind_msg)
  br label %error
error:
  ret ptr null
}

; ---- jf(*args) (JIT_CALL): the last call's trace (jf._last: (kinds, a Prepared)) run
; by its door on the arguments' values; NULL without an error where the Python method
; decides (nothing has run then), NULL with one on error
define internal ptr @lz_jit(ptr %ctx, ptr %self, ptr %args, i64 %nargs) {
entry:
  %lt = call ptr @lz_attr(ptr %ctx, ptr %self, i64 $C_LAST_NAME$)
  %nolt = icmp eq ptr %lt, null
  br i1 %nolt, label %error, label %pair
pair:
  %ist = call i1 @is_tuple(ptr %ctx, ptr %lt)
  br i1 %ist, label %pairsize, label %nolast
pairsize:
  %ps = call i64 @size(ptr %lt)
  %two = icmp eq i64 %ps, 2
  br i1 %two, label %prep, label %nolast
prep:
  %kinds = call ptr @item(ptr %lt, i64 0)
  %pr = call ptr @item(ptr %lt, i64 1)
  %prt = call ptr @type(ptr %pr)
  %pt = call ptr @w(ptr %ctx, i64 $C_PREPARED_T$)
  %isp = icmp eq ptr %prt, %pt
  %kt = call i1 @is_tuple(ptr %ctx, ptr %kinds)
  %both = and i1 %isp, %kt
  br i1 %both, label %arity, label %nolast
arity:
  %nk = call i64 @size(ptr %kinds)
  %samen = icmp eq i64 %nk, %nargs
  br i1 %samen, label %prepared, label %nolast
prepared:
  %r = call ptr @lz_prepared(ptr %ctx, ptr %pr, ptr %args, i64 %nargs)
  call void @Py_DecRef(ptr %lt)
  ret ptr %r
nolast:
  call void @Py_DecRef(ptr %lt)
  br label %no
no:
  ret ptr null
error:
  ret ptr null
}

; ---- a Prepared %pr (borrowed) run by its front door on the values of %args (numpy
; arrays, Arrays holding values), its outputs made Arrays; NULL without an error where
; the Python method decides (nothing has run then), NULL with one on error
define internal ptr @lz_prepared(ptr %ctx, ptr %pr, ptr %args, i64 %nargs) {
entry:
  %vals = alloca [$MAX_DIRECT$ x ptr]
  %few = icmp ule i64 %nargs, $MAX_DIRECT$
  br i1 %few, label %values, label %no
values:
  %ndt = call ptr @w(ptr %ctx, i64 $C_NDARRAY_T$)
  %at = call ptr @w(ptr %ctx, i64 $C_ARRAY_T$)
  %on = call i64 @wi(ptr %ctx, i64 $C_A_NODE$)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  br label %loop
loop:
  %i = phi i64 [0, %values], [%i1, %store]
  %more = icmp slt i64 %i, %nargs
  br i1 %more, label %arg, label %door
arg:
  %ap = getelementptr ptr, ptr %args, i64 %i
  %a = load ptr, ptr %ap
  %t = call ptr @type(ptr %a)
  %isnd = icmp eq ptr %t, %ndt
  br i1 %isnd, label %store, label %array
array:
  %isa = icmp eq ptr %t, %at
  br i1 %isa, label %held, label %unwind
held:
  %n = call ptr @get(ptr %a, i64 %on)
  %unset = icmp eq ptr %n, null
  br i1 %unset, label %unwind, label %nodeval
nodeval:
  %hv = call ptr @get(ptr %n, i64 %ov)
  %hvt = call ptr @type(ptr %hv)
  %hvnd = icmp eq ptr %hvt, %ndt
  br i1 %hvnd, label %store, label %unwind
store:
  ; held until the door returns: it runs without the GIL, while another thread may
  ; give an Array another node
  %v = phi ptr [%a, %arg], [%hv, %nodeval]
  call void @Py_IncRef(ptr %v)
  %vp = getelementptr [$MAX_DIRECT$ x ptr], ptr %vals, i64 0, i64 %i
  store ptr %v, ptr %vp
  %i1 = add i64 %i, 1
  br label %loop
unwind:
  call void @lz_release(ptr %vals, i64 %i)
  br label %no
door:
  call void @Py_IncRef(ptr %pr)
  %dr = call ptr @lz_attr(ptr %ctx, ptr %pr, i64 $C_DOOR_ATTR$)
  %nodr = icmp eq ptr %dr, null
  br i1 %nodr, label %errorvals, label %hasdoor
errorvals:
  call void @lz_release(ptr %vals, i64 %nargs)
  br label %errorpr
hasdoor:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %drnone = icmp eq ptr %dr, %none
  br i1 %drnone, label %nodoor, label %run
run:
  %out = call ptr @PyObject_Vectorcall(ptr %dr, ptr %vals, i64 %nargs, ptr null)
  call void @Py_DecRef(ptr %dr)
  call void @lz_release(ptr %vals, i64 %nargs)
  %noout = icmp eq ptr %out, null
  br i1 %noout, label %errorpr, label %ran
ran:
  %fb = call ptr @w(ptr %ctx, i64 $C_DOOR_FALLBACK$)
  %isfb = icmp eq ptr %out, %fb
  br i1 %isfb, label %fellback, label %kinds_out
kinds_out:
  %ko = call ptr @lz_attr(ptr %ctx, ptr %pr, i64 $C_DOOR_OUT$)
  %noko = icmp eq ptr %ko, null
  br i1 %noko, label %errorout, label %kocheck
kocheck:
  %konone = icmp eq ptr %ko, %none
  br i1 %konone, label %kofirst, label %single
kofirst:
  ; the first run through the door: its kinds made by the Python method
  call void @Py_DecRef(ptr %ko)
  %meth = call ptr @lz_attr(ptr %ctx, ptr %pr, i64 $C_DOOR_OUTPUTS$)
  %nometh = icmp eq ptr %meth, null
  br i1 %nometh, label %errorout, label %callmeth
callmeth:
  %ko2 = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %meth, ptr %out, ptr null)
  call void @Py_DecRef(ptr %meth)
  %noko2 = icmp eq ptr %ko2, null
  br i1 %noko2, label %errorout, label %single
single:
  %kinds2 = phi ptr [%ko, %kocheck], [%ko2, %callmeth]
  %prog = call ptr @lz_attr(ptr %ctx, ptr %pr, i64 $C_PROGRAM_NAME$)
  %noprog = icmp eq ptr %prog, null
  br i1 %noprog, label %errorko, label %getsingle
getsingle:
  %sg = call ptr @lz_attr(ptr %ctx, ptr %prog, i64 $C_SINGLE_NAME$)
  call void @Py_DecRef(ptr %prog)
  %nosg = icmp eq ptr %sg, null
  br i1 %nosg, label %errorko, label %results
results:
  %tr = call ptr @w(ptr %ctx, i64 $C_TRUE$)
  %one = icmp eq ptr %sg, %tr
  call void @Py_DecRef(ptr %sg)
  %res = call ptr @lz_results(ptr %ctx, ptr %out, ptr %kinds2, i1 %one)
  call void @Py_DecRef(ptr %kinds2)
  call void @Py_DecRef(ptr %out)
  call void @Py_DecRef(ptr %pr)
  ret ptr %res
errorko:
  call void @Py_DecRef(ptr %kinds2)
  br label %errorout
errorout:
  call void @Py_DecRef(ptr %out)
  br label %errorpr
errorpr:
  call void @Py_DecRef(ptr %pr)
  br label %error
fellback:
  call void @Py_DecRef(ptr %out)
  call void @Py_DecRef(ptr %pr)
  br label %no
nodoor:
  call void @lz_release(ptr %vals, i64 %nargs)
  call void @Py_DecRef(ptr %dr)
  call void @Py_DecRef(ptr %pr)
  br label %no
no:
  ret ptr null
error:
  ret ptr null
}

; ---- a METH_FASTCALL method's entry (JIT_CALL: lz_jit; PREPARED_CALL: lz_prepared),
; else the Python method with %self first (a copy of the arguments on the stack)
define internal ptr @lz_vmethod(ptr %ctx, ptr %self, ptr %args, i64 %nargs, ptr %kwnames) {
entry:
  %nokw = icmp eq ptr %kwnames, null
  br i1 %nokw, label %native, label %python
native:
  %kind = call i64 @wi(ptr %ctx, i64 $C_KIND$)
  %isarray = icmp eq i64 %kind, $ARRAY$
  br i1 %isarray, label %array, label %calls
array:
  %noargs = icmp eq i64 %nargs, 0
  br i1 %noargs, label %asarray, label %python
asarray:
  %ra = call ptr @lz_array(ptr %ctx, ptr %self)
  %nora = icmp eq ptr %ra, null
  br i1 %nora, label %why, label %oka
oka:
  ret ptr %ra
calls:
  %isjit = icmp eq i64 %kind, $JIT_CALL$
  br i1 %isjit, label %jit, label %prepared
prepared:
  %rp = call ptr @lz_prepared(ptr %ctx, ptr %self, ptr %args, i64 %nargs)
  %norp = icmp eq ptr %rp, null
  br i1 %norp, label %why, label %okp
okp:
  ret ptr %rp
jit:
  %r = call ptr @lz_jit(ptr %ctx, ptr %self, ptr %args, i64 %nargs)
  %nor = icmp eq ptr %r, null
  br i1 %nor, label %why, label %ok
ok:
  ; a call that found its trace: the traces-in-a-row count starts again (as in Python)
  call void @lz_no_retraces(ptr %ctx, ptr %self)
  ret ptr %r
why:
  %err = call i1 @failed()
  br i1 %err, label %error, label %python
error:
  ret ptr null
python:
  br i1 %nokw, label %sized, label %kwsize
kwsize:
  %nkw0 = call i64 @size(ptr %kwnames)
  br label %sized
sized:
  %nkw = phi i64 [0, %python], [%nkw0, %kwsize]
  %rest = add i64 %nargs, %nkw
  %total = add i64 %rest, 1
  %buf = alloca ptr, i64 %total
  store ptr %self, ptr %buf
  br label %copy
copy:
  %i = phi i64 [0, %sized], [%i1, %body]
  %more = icmp slt i64 %i, %rest
  br i1 %more, label %body, label %call
body:
  %sp = getelementptr ptr, ptr %args, i64 %i
  %v = load ptr, ptr %sp
  %j = add i64 %i, 1
  %dp = getelementptr ptr, ptr %buf, i64 %j
  store ptr %v, ptr %dp
  %i1 = add i64 %i, 1
  br label %copy
call:
  %fn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %np1 = add i64 %nargs, 1
  %o = call ptr @PyObject_Vectorcall(ptr %fn, ptr %buf, i64 %np1, ptr %kwnames)
  ret ptr %o
}

; ---- self._retraces = 0 where it is not 0 already (errors cleared: only a count)
define internal void @lz_no_retraces(ptr %ctx, ptr %self) {
entry:
  %v = call ptr @lz_attr(ptr %ctx, ptr %self, i64 $C_RETRACES$)
  %nov = icmp eq ptr %v, null
  br i1 %nov, label %clear, label %check
check:
  %zero = call ptr @w(ptr %ctx, i64 $C_ZERO$)
  %is0 = icmp eq ptr %v, %zero
  call void @Py_DecRef(ptr %v)
  br i1 %is0, label %done, label %set
set:
  %name = call ptr @w(ptr %ctx, i64 $C_RETRACES$)
  %rc = call i32 @PyObject_SetAttr(ptr %self, ptr %name, ptr %zero)
  %bad = icmp ne i32 %rc, 0
  br i1 %bad, label %clear, label %done
clear:
  call void @PyErr_Clear()
  br label %done
done:
  ret void
}
