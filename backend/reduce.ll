; Full reductions of the native steps (backend/steps.ll): a step whose one-op program is
; not known and that reduces every axis of a value read where it lies (sum, prod, max,
; min, mean, any, all of one source of its own dtype) runs on the building blocks that the
; interpreter's reduction kernel calls, in the same order: the lanes set to the identity,
; each block of the value combined into them, the lanes combined (pairwise for float
; sums), a mean divided.  No program is looked up, planned or made.  Appended to
; backend/recorder.ll with steps.ll (one unit).

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; ---- the reductions' table entry of (%op, %dt) (borrowed), or null: not taken (an error
; when set).  C_REDUCE: (op, dtype) -> (init, acc, hred, mean (0: none), lanes, numpy
; dtype, item size) or None; a miss asks C_REDUCE_MISS(op, dtype), which puts the answer
; there (entries are never replaced)
define internal ptr @lz_fullred_entry(ptr %ctx, ptr %op, ptr %dt) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %tab = call ptr @w(ptr %ctx, i64 $C_REDUCE$)
  %key = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %op, ptr %dt)
  %nokey = icmp eq ptr %key, null
  br i1 %nokey, label %error, label %find
find:
  %hit = call ptr @PyDict_GetItemWithError(ptr %tab, ptr %key)
  %miss = icmp eq ptr %hit, null
  br i1 %miss, label %missed, label %found
missed:
  %err = call i1 @failed()
  br i1 %err, label %errorkey, label %ask
ask:
  %fn = call ptr @w(ptr %ctx, i64 $C_REDUCE_MISS$)
  %r = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %op, ptr %dt, ptr null)
  %nor = icmp eq ptr %r, null
  br i1 %nor, label %errorkey, label %asked
asked:
  call void @Py_DecRef(ptr %r)
  %hit2 = call ptr @PyDict_GetItemWithError(ptr %tab, ptr %key)
  %miss2 = icmp eq ptr %hit2, null
  br i1 %miss2, label %errorkey, label %found
found:
  %e = phi ptr [%hit, %find], [%hit2, %asked]
  call void @Py_DecRef(ptr %key)
  %isnone = icmp eq ptr %e, %none
  %r0 = select i1 %isnone, ptr null, ptr %e
  ret ptr %r0
errorkey:
  call void @Py_DecRef(ptr %key)
  br label %error
error:
  ret ptr null
}

; ---- %n (held) reduced here when it is a full reduction of a value read where it lies
; and its building blocks are loaded: 1 ran (%n has its value), 0 not taken (nothing
; changed), -1 on error.  %first: the evaluation's first step (announced before it runs)
define internal i32 @lz_full_reduce(ptr %ctx, ptr %n, i1 %first, ptr %root, i64 %count) {
entry:
  %acc = alloca [$REDUCE_BYTES$ x i8], align 64  ; the lanes
  %res = alloca [16 x i8], align 16              ; the result element
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %osh = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %oa = call i64 @wi(ptr %ctx, i64 $C_N_ARG$)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %srcs = call ptr @get(ptr %n, i64 %osr)
  %k = call i64 @size(ptr %srcs)
  %one = icmp eq i64 %k, 1
  br i1 %one, label %source, label %no
source:
  ; one source of the node's own dtype (a sum's or an any's cast is a node before it)
  %s = call ptr @item(ptr %srcs, i64 0)
  %dt = call ptr @get(ptr %n, i64 %od)
  %sdt = call ptr @get(ptr %s, i64 %od)
  %samed = icmp eq ptr %dt, %sdt
  br i1 %samed, label %arg, label %no
arg:
  ; (axes, keepdims), the axes as many as the source's: every axis
  %a = call ptr @get(ptr %n, i64 %oa)
  %at = call ptr @type(ptr %a)
  %isat = icmp eq ptr %at, %tt
  br i1 %isat, label %pair, label %no
pair:
  %na = call i64 @size(ptr %a)
  %two = icmp eq i64 %na, 2
  br i1 %two, label %axes, label %no
axes:
  %ax = call ptr @item(ptr %a, i64 0)
  %axt = call ptr @type(ptr %ax)
  %isaxt = icmp eq ptr %axt, %tt
  br i1 %isaxt, label %every, label %no
every:
  %sshape = call ptr @get(ptr %s, i64 %osh)
  %nax = call i64 @size(ptr %ax)
  %rank = call i64 @size(ptr %sshape)
  %all = icmp eq i64 %nax, %rank
  br i1 %all, label %valued, label %no
valued:
  %v = call ptr @get(ptr %s, i64 %ov)
  %hasv = icmp ne ptr %v, %none
  br i1 %hasv, label %table, label %no
table:
  %op = call ptr @get(ptr %n, i64 %oo)
  %e = call ptr @lz_fullred_entry(ptr %ctx, ptr %op, ptr %dt)
  %noe = icmp eq ptr %e, null
  br i1 %noe, label %noentry, label %sized
noentry:
  %eerr = call i1 @failed()
  br i1 %eerr, label %error, label %no
sized:
  ; (an empty one is the program's: max raises, the others give the identity)
  %cnt = call i64 @small(ptr %ctx, ptr %sshape)
  %some = icmp sgt i64 %cnt, 0
  br i1 %some, label %plain, label %no
plain:
  %descr = call ptr @item(ptr %e, i64 5)
  %data = call ptr @lz_plain(ptr %ctx, ptr %v, ptr %descr, i64 %cnt)
  %isplain = icmp ne ptr %data, null
  br i1 %isplain, label %value, label %no
value:
  %shape = call ptr @get(ptr %n, i64 %osh)
  %empty = call ptr @w(ptr %ctx, i64 $C_EMPTY_FN$)
  %out = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %empty, ptr %shape, ptr %descr, ptr null)
  %noout = icmp eq ptr %out, null
  br i1 %noout, label %error, label %outdata
outdata:
  ; (numpy.empty ran Python code: the source's value is read again)
  %o0 = call ptr @lz_plain(ptr %ctx, ptr %out, ptr %descr, i64 1)
  %v2 = call ptr @get(ptr %s, i64 %ov)
  %data2 = call ptr @lz_plain(ptr %ctx, ptr %v2, ptr %descr, i64 %cnt)
  %okout = icmp ne ptr %o0, null
  %okdata = icmp ne ptr %data2, null
  %still = call i1 @computed(ptr %ctx, ptr %n)
  %both0 = and i1 %okout, %okdata
  %both = and i1 %both0, %still
  br i1 %both, label %announce, label %dropout
announce:
  br i1 %first, label %announcer, label %run
announcer:
  %said = call i1 @lz_announce(ptr %ctx, ptr %root, i64 %count)
  br i1 %said, label %run, label %errorout
run:
  ; (the value is held by %s, which %n holds; no Python code runs from here to the copy)
  %finit = call i64 @eint(ptr %ctx, ptr %e, i64 0)
  %facc = call i64 @eint(ptr %ctx, ptr %e, i64 1)
  %fhred = call i64 @eint(ptr %ctx, ptr %e, i64 2)
  %fmean = call i64 @eint(ptr %ctx, ptr %e, i64 3)
  %lanes = call i64 @eint(ptr %ctx, ptr %e, i64 4)
  %isize = call i64 @eint(ptr %ctx, ptr %e, i64 6)
  %pinit = inttoptr i64 %finit to ptr
  %pacc = inttoptr i64 %facc to ptr
  %phred = inttoptr i64 %fhred to ptr
  call void %pinit(ptr %acc, i64 %lanes)
  call void %pinit(ptr %res, i64 1)
  br label %blocks
blocks:
  %off = phi i64 [0, %run], [%off1, %block]
  %bmore = icmp slt i64 %off, %cnt
  br i1 %bmore, label %block, label %combine
block:
  %left = sub i64 %cnt, %off
  %full = icmp sgt i64 %left, %lanes
  %bn = select i1 %full, i64 %lanes, i64 %left
  %boff = mul i64 %off, %isize
  %bp = getelementptr i8, ptr %data2, i64 %boff
  call void %pacc(ptr %acc, ptr %bp, i64 %bn)
  %off1 = add i64 %off, %lanes
  br label %blocks
combine:
  %few = icmp slt i64 %cnt, %lanes
  %used = select i1 %few, i64 %cnt, i64 %lanes
  call void %phred(ptr %res, ptr %acc, i64 %used)
  %ismean = icmp ne i64 %fmean, 0
  br i1 %ismean, label %mean, label %put
mean:
  %pmean = inttoptr i64 %fmean to ptr
  call void %pmean(ptr %res, i64 %cnt, i64 1)
  br label %put
put:
  call void @llvm.memcpy.p0.p0.i64(ptr %o0, ptr %res, i64 %isize, i1 false)
  %leaf = call ptr @lz_leaf_id_cached(ptr %ctx, ptr %dt, ptr %shape)
  %noleaf = icmp eq ptr %leaf, null
  br i1 %noleaf, label %errorout, label %evaluate
evaluate:
  %st = call i32 @lz_evaluated(ptr %ctx, ptr %n, ptr %out, ptr %leaf, i1 0)
  call void @Py_DecRef(ptr %leaf)
  %everr = icmp slt i32 %st, 0
  br i1 %everr, label %error, label %counted
counted:
  %cp = call ptr @w(ptr %ctx, i64 $C_REDUCED$)
  %c = load i64, ptr %cp
  %c1 = add i64 %c, 1
  store i64 %c1, ptr %cp
  ret i32 1
dropout:
  ; (not expected: numpy.empty gives a plain array, and a value once given stays)
  call void @Py_DecRef(ptr %out)
  br label %no
errorout:
  call void @Py_DecRef(ptr %out)
  br label %error
no:
  ret i32 0
error:
  ret i32 -1
}
