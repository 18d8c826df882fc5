; Reductions of the native steps (backend/steps.ll): a step whose one-op program is not
; known and that reduces the leading or the trailing axes (every axis included) of a value
; read where it lies (sum, prod, max, min, mean, any, all of one source of its own dtype)
; runs on the building blocks that the interpreter's reduction kernel calls, in the same
; order.  Trailing axes ("along": each result reduces a contiguous run): the lanes set
; to the identity, each block of the run combined into them, the lanes combined (pairwise
; for float sums), a mean divided.  Leading axes ("across": the results are a contiguous
; run, each reduced point a row of them): a lane per result, each row combined into them
; in order, a mean divided.  No program is looked up, planned or made.  Appended to
; backend/recorder.ll with steps.ll (one unit).

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; ---- the reductions' table entry of (%op, %dt) (borrowed), or null: not taken (an error
; when set).  C_REDUCE: (op, dtype) -> (init, acc, hred, mean (0: none), lanes, numpy
; dtype, item size, copy) or None, filled by C_REDUCE_MISS(op, dtype) (lz_table_get)
define internal ptr @lz_reduction_entry(ptr %ctx, ptr %op, ptr %dt) {
entry:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %key = call ptr (i64, ...) @PyTuple_Pack(i64 2, ptr %op, ptr %dt)
  %nokey = icmp eq ptr %key, null
  br i1 %nokey, label %error, label %find
find:
  %tab = call ptr @w(ptr %ctx, i64 $C_REDUCE$)
  %fn = call ptr @w(ptr %ctx, i64 $C_REDUCE_MISS$)
  %e = call ptr @lz_table_get(ptr %tab, ptr %fn, ptr %key)
  call void @Py_DecRef(ptr %key)
  %isnone = icmp eq ptr %e, %none
  %r0 = select i1 %isnone, ptr null, ptr %e
  ret ptr %r0
error:
  ret ptr null
}

; ---- the element count of %shape's sizes from %lo to %hi (Python ints, checked by @small)
define internal i64 @lz_sizes(ptr %ctx, ptr %shape, i64 %lo, i64 %hi) {
entry:
  %ok = alloca i1
  br label %loop
loop:
  %i = phi i64 [%lo, %entry], [%i1, %body]
  %p = phi i64 [1, %entry], [%p1, %body]
  %more = icmp slt i64 %i, %hi
  br i1 %more, label %body, label %done
body:
  %d = call ptr @item(ptr %shape, i64 %i)
  %x = call i64 @lz_int(ptr %ctx, ptr %d, ptr %ok)
  %p1 = mul i64 %p, %x
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret i64 %p
}

; ---- where the reduced %axes (a tuple of ints, sorted and distinct, as the front end
; records them) lie among %rank axes: 1 the trailing ones (every axis included), 2 the
; leading ones, 0 elsewhere
define internal i32 @lz_axes_kind(ptr %ctx, ptr %axes, i64 %rank) {
entry:
  %ok = alloca i1
  %nax = call i64 @size(ptr %axes)
  %some = icmp sgt i64 %nax, 0
  br i1 %some, label %loop, label %no
loop:
  %i = phi i64 [0, %entry], [%i1, %next]
  %lead = phi i1 [1, %entry], [%lead1, %next]
  %trail = phi i1 [1, %entry], [%trail1, %next]
  %more = icmp slt i64 %i, %nax
  br i1 %more, label %body, label %done
body:
  %a = call ptr @item(ptr %axes, i64 %i)
  %x = call i64 @lz_int(ptr %ctx, ptr %a, ptr %ok)
  %isint = load i1, ptr %ok
  br i1 %isint, label %next, label %no
next:
  %off = sub i64 %rank, %nax
  %t = add i64 %off, %i
  %ist = icmp eq i64 %x, %t
  %isl = icmp eq i64 %x, %i
  %trail1 = and i1 %trail, %ist
  %lead1 = and i1 %lead, %isl
  %i1 = add i64 %i, 1
  br label %loop
done:
  br i1 %trail, label %along, label %leading
along:
  ret i32 1
leading:
  %k = select i1 %lead, i32 2, i32 0
  ret i32 %k
no:
  ret i32 0
}

; ---- %n (held) reduced here when it reduces the leading or the trailing axes of a value
; read where it lies and its building blocks are loaded: 1 ran (%n has its value), 0 not
; taken (nothing changed), -1 on error.  %first: the evaluation's first step (announced
; before it runs)
define internal i32 @lz_reduce_step(ptr %ctx, ptr %n, i1 %first, ptr %root, i64 %count) {
entry:
  %acc = alloca [$REDUCE_BYTES$ x i8], align 64  ; the lanes
  %reg = alloca [$REDUCE_BYTES$ x i8], align 64  ; a block of strided points, gathered
  %blocks = alloca [6 x i64]                     ; lz_blocks_of's words
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %osh = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %oa = call i64 @wi(ptr %ctx, i64 $C_N_ARG$)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
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
  ; (axes, keepdims)
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
  br i1 %isaxt, label %valued, label %no
valued:
  %v = call ptr @get(ptr %s, i64 %ov)
  %hasv = icmp ne ptr %v, %none
  br i1 %hasv, label %sized, label %no
sized:
  ; (an empty one is the program's: max raises, the others give the identity)
  %sshape = call ptr @get(ptr %s, i64 %osh)
  %cnt = call i64 @small(ptr %ctx, ptr %sshape)
  %some = icmp sgt i64 %cnt, 0
  br i1 %some, label %where, label %no
where:
  %rank = call i64 @size(ptr %sshape)
  %nax = call i64 @size(ptr %ax)
  %kind = call i32 @lz_axes_kind(ptr %ctx, ptr %ax, i64 %rank)
  %kept = sub i64 %rank, %nax
  ; along: %outer results, each of a run of %m; across: %m results, %outer rows
  %isalong = icmp eq i32 %kind, 1
  %split = select i1 %isalong, i64 %kept, i64 %nax
  %placed = icmp ne i32 %kind, 0
  br i1 %placed, label %table, label %no
table:
  %op = call ptr @get(ptr %n, i64 %oo)
  %e = call ptr @lz_reduction_entry(ptr %ctx, ptr %op, ptr %dt)
  %noe = icmp eq ptr %e, null
  br i1 %noe, label %noentry, label %plain
noentry:
  %eerr = call i1 @failed()
  br i1 %eerr, label %error, label %no
plain:
  %descr = call ptr @item(ptr %e, i64 5)
  %data = call ptr @lz_plain(ptr %ctx, ptr %v, ptr %descr, i64 %cnt)
  %isplain = icmp ne ptr %data, null
  br i1 %isplain, label %value, label %no
value:
  %outer = call i64 @lz_sizes(ptr %ctx, ptr %sshape, i64 0, i64 %split)
  %m = call i64 @lz_sizes(ptr %ctx, ptr %sshape, i64 %split, i64 %rank)
  ; results and reduced points: trailing axes, %outer runs of %m; leading, %outer rows of %m
  %nout = select i1 %isalong, i64 %outer, i64 %m
  %nred = select i1 %isalong, i64 %m, i64 %outer
  %shape = call ptr @get(ptr %n, i64 %osh)
  %empty = call ptr @w(ptr %ctx, i64 $C_EMPTY_FN$)
  %out = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %empty, ptr %shape, ptr %descr, ptr null)
  %noout = icmp eq ptr %out, null
  br i1 %noout, label %error, label %outdata
outdata:
  ; (numpy.empty ran Python code: the source's value is read again)
  %o0 = call ptr @lz_plain(ptr %ctx, ptr %out, ptr %descr, i64 %nout)
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
  ; (the value is held by %s, which %n holds; no Python code runs from here to the value)
  call void @lz_blocks_of(ptr %ctx, ptr %e, ptr %blocks)
  %isize = call i64 @eint(ptr %ctx, ptr %e, i64 6)
  ; the strides of the results and of the reduced points (bytes)
  %runb = mul i64 %m, %isize
  %ostride = select i1 %isalong, i64 %runb, i64 %isize
  %rstride = select i1 %isalong, i64 %isize, i64 %runb
  %lanesw = call i1 @lz_lanes_chosen(i64 %nout, i64 %nred, i64 %ostride, i64 %rstride, i64 %isize)
  br i1 %lanesw, label %along, label %across
along:
  call void @lz_reduce_along(ptr %blocks, ptr %acc, ptr %reg, ptr %data2, ptr %o0, i64 %nout, i64 %nred, i64 %ostride, i64 %rstride, i64 %isize)
  br label %put
across:
  call void @lz_reduce_across(ptr %blocks, ptr %acc, ptr %reg, ptr %data2, ptr %o0, i64 %nout, i64 %nred, i64 %ostride, i64 %rstride, i64 %isize)
  br label %put
put:
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

; ---- the building blocks of entry %e into %b: init, acc, hred, mean (0: none), copy,
; lanes
define internal void @lz_blocks_of(ptr %ctx, ptr %e, ptr %b) {
entry:
  %f0 = call i64 @eint(ptr %ctx, ptr %e, i64 0)
  store i64 %f0, ptr %b
  %f1 = call i64 @eint(ptr %ctx, ptr %e, i64 1)
  %b1 = getelementptr i64, ptr %b, i64 1
  store i64 %f1, ptr %b1
  %f2 = call i64 @eint(ptr %ctx, ptr %e, i64 2)
  %b2 = getelementptr i64, ptr %b, i64 2
  store i64 %f2, ptr %b2
  %f3 = call i64 @eint(ptr %ctx, ptr %e, i64 3)
  %b3 = getelementptr i64, ptr %b, i64 3
  store i64 %f3, ptr %b3
  %f4 = call i64 @eint(ptr %ctx, ptr %e, i64 7)
  %b4 = getelementptr i64, ptr %b, i64 4
  store i64 %f4, ptr %b4
  %f5 = call i64 @eint(ptr %ctx, ptr %e, i64 4)
  %b5 = getelementptr i64, ptr %b, i64 5
  store i64 %f5, ptr %b5
  ret void
}

define internal ptr @lz_block(ptr %b, i64 %i) {
  %p = getelementptr i64, ptr %b, i64 %i
  %v = load i64, ptr %p
  %f = inttoptr i64 %v to ptr
  ret ptr %f
}

; ---- whether the interpreter's kernel runs its blocks along the reduced axis (lanes)
; rather than across the results (bytecode.choose_axis, for %nout results %ostride bytes
; apart and %nred reduced points %rstride apart, each one axis); every axis reduced: along
define internal i1 @lz_lanes_chosen(i64 %nout, i64 %nred, i64 %ostride, i64 %rstride, i64 %isize) {
entry:
  %isfull = icmp eq i64 %nout, 1
  br i1 %isfull, label %yes, label %choose
choose:
  %uo = icmp eq i64 %ostride, %isize
  %ur = icmp eq i64 %rstride, %isize
  %so16 = icmp sge i64 %nout, 16
  %more = and i1 %uo, %ur
  %oonly = xor i1 %ur, 1
  %ogt = and i1 %uo, %oonly            ; unit_o > unit_r
  %same = icmp eq i1 %uo, %ur
  %longer = icmp sge i64 %nout, %nred
  %sameb = and i1 %same, %longer
  %rows = icmp sle i64 %nred, $ACROSS_ROWS$
  %c1 = or i1 %ogt, %sameb
  %c2 = or i1 %c1, %rows
  %acrossfirst = and i1 %so16, %c2
  br i1 %acrossfirst, label %no, label %second
second:
  %sr16 = icmp sge i64 %nred, 16
  %srge = icmp sge i64 %nred, %nout
  %al = or i1 %sr16, %srge
  ret i1 %al
yes:
  ret i1 1
no:
  ret i1 0
}

; ---- %nout results at %out, each of %nred points %rstride bytes apart, the results'
; points %ostride bytes apart at %data: the interpreter's "along" kernel (lanes set to the
; identity, each block of a result's points combined into them, the lanes combined, a
; mean divided)
define internal void @lz_reduce_along(ptr %b, ptr %acc, ptr %reg, ptr %data, ptr %out, i64 %nout, i64 %nred, i64 %ostride, i64 %rstride, i64 %isize) {
entry:
  %init = call ptr @lz_block(ptr %b, i64 0)
  %accf = call ptr @lz_block(ptr %b, i64 1)
  %hred = call ptr @lz_block(ptr %b, i64 2)
  %mean = call ptr @lz_block(ptr %b, i64 3)
  %copy = call ptr @lz_block(ptr %b, i64 4)
  %lp = getelementptr i64, ptr %b, i64 5
  %lanes = load i64, ptr %lp
  %ismean = icmp ne ptr %mean, null
  %direct = icmp eq i64 %rstride, %isize
  %few = icmp slt i64 %nred, %lanes
  %used = select i1 %few, i64 %nred, i64 %lanes
  br label %results
results:
  %r = phi i64 [0, %entry], [%r1, %combined]
  %rmore = icmp slt i64 %r, %nout
  br i1 %rmore, label %result, label %done
result:
  %roff = mul i64 %r, %ostride
  %run = getelementptr i8, ptr %data, i64 %roff
  %ooff = mul i64 %r, %isize
  %res = getelementptr i8, ptr %out, i64 %ooff
  call void %init(ptr %acc, i64 %lanes)
  call void %init(ptr %res, i64 1)
  br label %blocks
blocks:
  %off = phi i64 [0, %result], [%off1, %added]
  %bmore = icmp slt i64 %off, %nred
  br i1 %bmore, label %block, label %combine
block:
  %left = sub i64 %nred, %off
  %full = icmp sgt i64 %left, %lanes
  %bn = select i1 %full, i64 %lanes, i64 %left
  %boff = mul i64 %off, %rstride
  %bp = getelementptr i8, ptr %run, i64 %boff
  br i1 %direct, label %add, label %gather
gather:
  call void %copy(ptr %reg, ptr %bp, i64 %rstride, i64 %bn)
  br label %add
add:
  %src = phi ptr [%bp, %block], [%reg, %gather]
  call void %accf(ptr %acc, ptr %src, i64 %bn)
  br label %added
added:
  %off1 = add i64 %off, %lanes
  br label %blocks
combine:
  call void %hred(ptr %res, ptr %acc, i64 %used)
  br i1 %ismean, label %divide, label %combined
divide:
  call void %mean(ptr %res, i64 %nred, i64 1)
  br label %combined
combined:
  %r1 = add i64 %r, 1
  br label %results
done:
  ret void
}

; ---- the same results by the interpreter's "across" kernel: a lane per result, %lanes
; results at a time, the reduced points combined into them in order, a mean divided
define internal void @lz_reduce_across(ptr %b, ptr %acc, ptr %reg, ptr %data, ptr %out, i64 %nout, i64 %nred, i64 %ostride, i64 %rstride, i64 %isize) {
entry:
  %init = call ptr @lz_block(ptr %b, i64 0)
  %accf = call ptr @lz_block(ptr %b, i64 1)
  %mean = call ptr @lz_block(ptr %b, i64 3)
  %copy = call ptr @lz_block(ptr %b, i64 4)
  %lp = getelementptr i64, ptr %b, i64 5
  %lanes = load i64, ptr %lp
  %ismean = icmp ne ptr %mean, null
  %direct = icmp eq i64 %ostride, %isize
  br label %chunks
chunks:
  %o = phi i64 [0, %entry], [%o1, %stored]
  %omore = icmp slt i64 %o, %nout
  br i1 %omore, label %chunk, label %done
chunk:
  %left = sub i64 %nout, %o
  %full = icmp sgt i64 %left, %lanes
  %cn = select i1 %full, i64 %lanes, i64 %left
  %coff = mul i64 %o, %ostride
  %first = getelementptr i8, ptr %data, i64 %coff
  call void %init(ptr %acc, i64 %cn)
  br label %points
points:
  %r = phi i64 [0, %chunk], [%r1, %added]
  %rmore = icmp slt i64 %r, %nred
  br i1 %rmore, label %point, label %finish
point:
  %roff = mul i64 %r, %rstride
  %rp = getelementptr i8, ptr %first, i64 %roff
  br i1 %direct, label %add, label %gather
gather:
  call void %copy(ptr %reg, ptr %rp, i64 %ostride, i64 %cn)
  br label %add
add:
  %src = phi ptr [%rp, %point], [%reg, %gather]
  call void %accf(ptr %acc, ptr %src, i64 %cn)
  br label %added
added:
  %r1 = add i64 %r, 1
  br label %points
finish:
  br i1 %ismean, label %divide, label %copyout
divide:
  call void %mean(ptr %acc, i64 %nred, i64 %cn)
  br label %copyout
copyout:
  %doff = mul i64 %o, %isize
  %dst = getelementptr i8, ptr %out, i64 %doff
  %bytes = mul i64 %cn, %isize
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %acc, i64 %bytes, i1 false)
  br label %stored
stored:
  %o1 = add i64 %o, %lanes
  br label %chunks
done:
  ret void
}
