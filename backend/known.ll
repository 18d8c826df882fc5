; A known structure's program run at a materialization point, natively:
; lazyarray/_program.py's materialize() for one array whose signature is current and whose
; program ran before (float(loss) in a loop).  Appended to backend/recorder.ll (one unit:
; it uses that file's helpers and context words, and steps.ll's lz_known).

; an item of a list
define internal ptr @litem(ptr %l, i64 %i) {
  %items = call ptr @get(ptr %l, i64 $LIST_ITEMS$)
  %p = getelementptr ptr, ptr %items, i64 %i
  %v = load ptr, ptr %p
  ret ptr %v
}

; a node's reference count: 1 when only its Array holds it
define internal i64 @refs(ptr %o) {
  %c = load i64, ptr %o
  ret i64 %c
}

; ---- _live.candidates([node]) for the one target %node (of Array %a), appended to
; %found (a list): the arrays recorded since the last materialization (C_RECENT, weak
; references) that only their Array holds, whose node is computed and whose signature
; is current (%epoch); the others are gone, are %a, hold %node or a leaf, or hold a node
; that other objects hold too while no loop state is known (C_STATES empty).  1; 0 when
; one may be a loop's state or is not an Array (the Python function tells); -1 on error.
; C_RECENT is left as it is (the caller empties it once it runs a program)
define internal i32 @lz_candidates(ptr %ctx, ptr %a, ptr %node, ptr %epoch, ptr %found) {
entry:
  %recent = call ptr @w(ptr %ctx, i64 $C_RECENT$)
  %l = call ptr @PySequence_List(ptr %recent)
  %nol = icmp eq ptr %l, null
  br i1 %nol, label %error, label %scan
scan:
  %count = call i64 @size(ptr %l)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %at = call ptr @w(ptr %ctx, i64 $C_ARRAY_T$)
  %on = call i64 @wi(ptr %ctx, i64 $C_A_NODE$)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %osg = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  br label %loop
loop:
  %i = phi i64 [0, %scan], [%i1, %next]
  %more = icmp slt i64 %i, %count
  br i1 %more, label %body, label %done
body:
  %ref = call ptr @litem(ptr %l, i64 %i)
  %o = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %ref, ptr null)
  %noo = icmp eq ptr %o, null
  br i1 %noo, label %faillist, label %alive
alive:
  %gone = icmp eq ptr %o, %none
  %self = icmp eq ptr %o, %a
  %skip = or i1 %gone, %self
  br i1 %skip, label %next, label %array
array:
  %t = call ptr @type(ptr %o)
  %isa = icmp eq ptr %t, %at
  br i1 %isa, label %held, label %maybe
held:
  %n2 = call ptr @get(ptr %o, i64 %on)
  %same = icmp eq ptr %n2, %node
  %v2 = call ptr @get(ptr %n2, i64 %ov)
  %valued = icmp ne ptr %v2, %none
  %s2 = call ptr @get(ptr %n2, i64 %osg)
  %unsigned = icmp eq ptr %s2, %none
  %leaf = or i1 %valued, %unsigned
  %out = or i1 %same, %leaf
  br i1 %out, label %next, label %signed
signed:
  %tri = call i1 @triple(ptr %ctx, ptr %s2)
  br i1 %tri, label %counted, label %maybe
counted:
  %c = call i64 @refs(ptr %n2)
  %alone = icmp eq i64 %c, 1
  br i1 %alone, label %current, label %states
current:
  ; held by its Array only: a candidate when its signature is current
  %e2 = call ptr @item(ptr %s2, i64 2)
  %cur = call i32 @PyObject_RichCompareBool(ptr %e2, ptr %epoch, i32 2)
  switch i32 %cur, label %failobj [i32 0, label %next
                                   i32 1, label %candidate]
candidate:
  %app = call i32 @PyList_Append(ptr %found, ptr %n2)
  %aperr = icmp slt i32 %app, 0
  br i1 %aperr, label %failobj, label %next
states:
  ; held elsewhere too: a candidate only as a loop's state (_live.state_key in STATES)
  %st = call ptr @w(ptr %ctx, i64 $C_STATES$)
  %ns = call i64 @PySet_Size(ptr %st)
  %nostates = icmp eq i64 %ns, 0
  br i1 %nostates, label %next, label %statekey
statekey:
  %sk = call ptr @lz_state_key(ptr %ctx, ptr %n2)
  %nosk = icmp eq ptr %sk, null
  br i1 %nosk, label %failobj, label %lookup
lookup:
  %in = call i32 @PySet_Contains(ptr %st, ptr %sk)
  call void @Py_DecRef(ptr %sk)
  switch i32 %in, label %unhashable [i32 0, label %next
                                     i32 1, label %candidate]
unhashable:
  ; (a parameter that cannot be hashed, or an error: the Python function tells)
  call void @PyErr_Clear()
  br label %maybe
next:
  call void @Py_DecRef(ptr %o)
  %i1 = add i64 %i, 1
  br label %loop
maybe:
  call void @Py_DecRef(ptr %o)
  call void @Py_DecRef(ptr %l)
  ret i32 0
done:
  call void @Py_DecRef(ptr %l)
  ret i32 1
failobj:
  call void @Py_DecRef(ptr %o)
  br label %faillist
faillist:
  call void @Py_DecRef(ptr %l)
  br label %error
error:
  ret i32 -1
}

; _live.state_key(%n): (op, dtype, shape, arg, ((op, dtype, shape) of each source)), a
; new reference; NULL on error
define internal ptr @lz_state_key(ptr %ctx, ptr %n) {
entry:
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %os = call i64 @wi(ptr %ctx, i64 $C_N_SHAPE$)
  %oa = call i64 @wi(ptr %ctx, i64 $C_N_ARG$)
  %osr = call i64 @wi(ptr %ctx, i64 $C_N_SRCS$)
  %srcs = call ptr @get(ptr %n, i64 %osr)
  %count = call i64 @size(ptr %srcs)
  %inner = call ptr @PyTuple_New(i64 %count)
  %noinner = icmp eq ptr %inner, null
  br i1 %noinner, label %error, label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %put]
  %more = icmp slt i64 %i, %count
  br i1 %more, label %source, label %pack
source:
  %s = call ptr @item(ptr %srcs, i64 %i)
  %sop = call ptr @get(ptr %s, i64 %oo)
  %sdt = call ptr @get(ptr %s, i64 %od)
  %ssh = call ptr @get(ptr %s, i64 %os)
  %t = call ptr (i64, ...) @PyTuple_Pack(i64 3, ptr %sop, ptr %sdt, ptr %ssh)
  %not = icmp eq ptr %t, null
  br i1 %not, label %failinner, label %put
put:
  %io = mul i64 %i, 8
  %io1 = add i64 %io, $TUPLE_ITEMS$
  call void @set(ptr %inner, i64 %io1, ptr %t)
  %i1 = add i64 %i, 1
  br label %loop
pack:
  %op = call ptr @get(ptr %n, i64 %oo)
  %dt = call ptr @get(ptr %n, i64 %od)
  %sh = call ptr @get(ptr %n, i64 %os)
  %arg = call ptr @get(ptr %n, i64 %oa)
  %key = call ptr (i64, ...) @PyTuple_Pack(i64 5, ptr %op, ptr %dt, ptr %sh, ptr %arg, ptr %inner)
  call void @Py_DecRef(ptr %inner)
  ret ptr %key
failinner:
  call void @Py_DecRef(ptr %inner)
  br label %error
error:
  ret ptr null
}

; C_RECENT emptied (as _live.candidates empties it): 1, 0 on error
define internal i1 @lz_recent_cleared(ptr %ctx) {
entry:
  %cl = call ptr @w(ptr %ctx, i64 $C_RECENT_CLEAR$)
  %r = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %cl, ptr null)
  %nor = icmp eq ptr %r, null
  br i1 %nor, label %error, label %cleared
cleared:
  call void @Py_DecRef(ptr %r)
  ret i1 1
error:
  ret i1 0
}

; ---- _program._run_known(keyed) for several nodes (%keyed, a list: the target and its
; candidates), when their joint signature's program is known: each node the program
; computes given its value (its entry's picks); 1 ran, 0 not known (C_RECENT as it was),
; 2 when the program raised an Exception (cleared: the target is computed alone, the
; sibling's error raised when it is evaluated itself), -1 on error
define internal i32 @lz_known_joint(ptr %ctx, ptr %keyed, ptr %fast) {
entry:
  %roots = call ptr @PyList_AsTuple(ptr %keyed)
  %noroots = icmp eq ptr %roots, null
  br i1 %noroots, label %error, label %sign
sign:
  ; _program._joint_signature: the signature of a node of no op reading them all
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %empty = call ptr @w(ptr %ctx, i64 $C_EMPTY$)
  %sig = call ptr @lz_record_sig(ptr %ctx, ptr %none, ptr %none, ptr %empty, ptr %roots, ptr %none)
  %nosig = icmp eq ptr %sig, null
  br i1 %nosig, label %failroots, label %signed
signed:
  %tri = call i1 @triple(ptr %ctx, ptr %sig)
  br i1 %tri, label %find, label %unknown
find:
  %k0 = call ptr @item(ptr %sig, i64 0)
  %hit = call ptr @PyDict_GetItemWithError(ptr %fast, ptr %k0)
  %nohit = icmp eq ptr %hit, null
  br i1 %nohit, label %missed, label %entry3
missed:
  %merr = call i1 @failed()
  br i1 %merr, label %failsig, label %unknown
entry3:
  ; (run, ids, picks) or (run, ids, picks, the program's Direct or None)
  %ne = call i64 @size(ptr %hit)
  %three = icmp eq i64 %ne, 3
  %four = icmp eq i64 %ne, 4
  %known = or i1 %three, %four
  br i1 %known, label %parts, label %unknown
parts:
  call void @Py_IncRef(ptr %hit)
  %run = call ptr @item(ptr %hit, i64 0)
  %ids = call ptr @item(ptr %hit, i64 1)
  %picks = call ptr @item(ptr %hit, i64 2)
  %tt = call ptr @w(ptr %ctx, i64 $C_TUPLE_T$)
  %idt = call ptr @type(ptr %ids)
  %pkt = call ptr @type(ptr %picks)
  %idok = icmp eq ptr %idt, %tt
  %pkok = icmp eq ptr %pkt, %tt
  %both = and i1 %idok, %pkok
  br i1 %both, label %clear, label %unknownhit
clear:
  %cl = call i1 @lz_recent_cleared(ptr %ctx)
  br i1 %cl, label %call, label %failhit
call:
  %lv = call ptr @item(ptr %sig, i64 1)
  br i1 %four, label %door, label %python
door:
  ; its front door called here (a tuple of outputs); not open, or falling back: run
  %d = call ptr @item(ptr %hit, i64 3)
  %dout = call ptr @lz_door_of(ptr %ctx, ptr %d, ptr %lv)
  %nodout = icmp eq ptr %dout, null
  br i1 %nodout, label %doorwhy, label %outlist
doorwhy:
  %derr = call i1 @failed()
  br i1 %derr, label %raised, label %python
python:
  %pouts = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %run, ptr %lv, ptr null)
  %noouts = icmp eq ptr %pouts, null
  br i1 %noouts, label %raised, label %outlist
raised:
  %exc = call ptr @w(ptr %ctx, i64 $C_EXCEPTION$)
  %isexc = call i32 @PyErr_ExceptionMatches(ptr %exc)
  %plain = icmp ne i32 %isexc, 0
  br i1 %plain, label %alone, label %failhit
alone:
  call void @PyErr_Clear()
  call void @Py_DecRef(ptr %hit)
  call void @Py_DecRef(ptr %sig)
  call void @Py_DecRef(ptr %roots)
  ret i32 2
outlist:
  %outs = phi ptr [%dout, %door], [%pouts, %python]
  %lt = call ptr @w(ptr %ctx, i64 $C_LIST_T$)
  %ot = call ptr @type(ptr %outs)
  %isl = icmp eq ptr %ot, %lt
  %ist = icmp eq ptr %ot, %tt
  %seq = or i1 %isl, %ist
  %sz = call i64 @size(ptr %outs)
  ; (a list, as the runners return; anything else gives no value: those stay lazy)
  %no = select i1 %seq, i64 %sz, i64 0
  %np = call i64 @size(ptr %picks)
  %ni = call i64 @size(ptr %ids)
  %nr = call i64 @size(ptr %roots)
  %m1 = call i64 @llvm.smin.i64(i64 %no, i64 %np)
  %m = call i64 @llvm.smin.i64(i64 %m1, i64 %ni)
  br label %loop
loop:
  %j = phi i64 [0, %outlist], [%j1, %given]
  %more = icmp slt i64 %j, %m
  br i1 %more, label %body, label %ran
body:
  %p = call i64 @position(ptr %ctx, ptr %picks, i64 %j, i64 %nr)
  %badp = icmp slt i64 %p, 0
  ; (never out of range: _program._remember made them; else that node stays lazy)
  br i1 %badp, label %given, label %value
value:
  %n = call ptr @item(ptr %roots, i64 %p)
  br i1 %isl, label %fromlist, label %fromtuple
fromlist:
  %vl = call ptr @litem(ptr %outs, i64 %j)
  br label %give
fromtuple:
  %vt = call ptr @item(ptr %outs, i64 %j)
  br label %give
give:
  %v = phi ptr [%vl, %fromlist], [%vt, %fromtuple]
  call void @Py_IncRef(ptr %v)
  %leaf = call ptr @item(ptr %ids, i64 %j)
  %st = call i32 @lz_evaluated(ptr %ctx, ptr %n, ptr %v, ptr %leaf, i1 0)
  %everr = icmp slt i32 %st, 0
  br i1 %everr, label %failouts, label %given
given:
  %j1 = add i64 %j, 1
  br label %loop
ran:
  call void @Py_DecRef(ptr %outs)
  call void @Py_DecRef(ptr %hit)
  call void @Py_DecRef(ptr %sig)
  call void @Py_DecRef(ptr %roots)
  ret i32 1
failouts:
  call void @Py_DecRef(ptr %outs)
  br label %failhit
unknownhit:
  call void @Py_DecRef(ptr %hit)
  br label %unknown
unknown:
  call void @Py_DecRef(ptr %sig)
  call void @Py_DecRef(ptr %roots)
  ret i32 0
failhit:
  call void @Py_DecRef(ptr %hit)
  br label %failsig
failsig:
  call void @Py_DecRef(ptr %sig)
  br label %failroots
failroots:
  call void @Py_DecRef(ptr %roots)
  br label %error
error:
  ret i32 -1
}

; ---- _steps.enabled() (1 or 0; -1 on error), without Python where the answer is sure:
; neither switch set (read in os.environ's own dict, as threads.none_set reads it) and
; the bundle loaded (library._bundle_state is True); else the Python function
define internal i32 @lz_enabled(ptr %ctx) {
entry:
  %env = call ptr @w(ptr %ctx, i64 $C_ENV_DATA$)
  %noenv = icmp eq ptr %env, null
  br i1 %noenv, label %python, label %steps
steps:
  %k1 = call ptr @w(ptr %ctx, i64 $C_ENV_STEPS$)
  %v1 = call ptr @PyDict_GetItemWithError(ptr %env, ptr %k1)
  %set1 = icmp ne ptr %v1, null
  br i1 %set1, label %python, label %tier
tier:
  %k2 = call ptr @w(ptr %ctx, i64 $C_ENV_TIER$)
  %v2 = call ptr @PyDict_GetItemWithError(ptr %env, ptr %k2)
  %set2 = icmp ne ptr %v2, null
  br i1 %set2, label %python, label %bundle
bundle:
  %lib = call ptr @w(ptr %ctx, i64 $C_LIB_DICT$)
  %bn = call ptr @w(ptr %ctx, i64 $C_BUNDLE_NAME$)
  %st = call ptr @PyDict_GetItemWithError(ptr %lib, ptr %bn)
  %tru = call ptr @w(ptr %ctx, i64 $C_TRUE$)
  %loaded = icmp eq ptr %st, %tru
  br i1 %loaded, label %yes, label %python
yes:
  ret i32 1
python:
  ; (a lookup's error, if any, is the Python function's to meet again)
  call void @PyErr_Clear()
  %en = call ptr @w(ptr %ctx, i64 $C_ENABLED$)
  %on = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %en, ptr null)
  %noon = icmp eq ptr %on, null
  br i1 %noon, label %error, label %truth
truth:
  %t = call i32 @PyObject_IsTrue(ptr %on)
  call void @Py_DecRef(ptr %on)
  ret i32 %t
error:
  ret i32 -1
}

; ---- _steps.quick for %n, a new structure (its signature current, its program not
; known) read alone (no candidate; C_RECENT emptied already): its steps run natively
; (lz_steps, as _steps._native runs them); 1 when they all ran (then _steps.settle's
; bookkeeping here: the structure met, the steps counted, the epoch back to %ep when
; %quiet) or when _program._settled took the rest; 0 when quick would not run them (steps
; off, the structure met before, a marked node: the Python function, nothing else changed);
; -1 on error
define internal i32 @lz_first(ptr %ctx, ptr %n, ptr %fast, ptr %ep, i1 %quiet, ptr %what) {
entry:
  %okp = alloca i1
  ; _steps.NATIVE still the native steps (tests set it to None: the Python loop)
  %sd = call ptr @w(ptr %ctx, i64 $C_STEPS_DICT$)
  %nn = call ptr @w(ptr %ctx, i64 $C_NATIVE_NAME$)
  %nat = call ptr @PyDict_GetItemWithError(ptr %sd, ptr %nn)
  %mine = call ptr @w(ptr %ctx, i64 $C_NATIVE_FN$)
  %same = icmp eq ptr %nat, %mine
  br i1 %same, label %enabled, label %python
enabled:
  %t = call i32 @lz_enabled(ptr %ctx)
  switch i32 %t, label %error [i32 0, label %python
                               i32 1, label %sign]
sign:
  ; (read after enabled(), Python code: the node as it is now)
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %v = call ptr @get(ptr %n, i64 %ov)
  %novalue = icmp eq ptr %v, %none
  %osg = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  %sig = call ptr @get(ptr %n, i64 %osg)
  %tri = call i1 @triple(ptr %ctx, ptr %sig)
  %go = and i1 %novalue, %tri
  br i1 %go, label %current, label %python
current:
  %e = call ptr @item(ptr %sig, i64 2)
  %cur = call i32 @PyObject_RichCompareBool(ptr %e, ptr %ep, i32 2)
  switch i32 %cur, label %error [i32 0, label %python
                                 i32 1, label %met]
met:
  call void @Py_IncRef(ptr %sig)
  %key = call ptr @item(ptr %sig, i64 0)
  %metset = call ptr @w(ptr %ctx, i64 $C_MET$)
  %was = call i32 @PySet_Contains(ptr %metset, ptr %key)
  switch i32 %was, label %failsig [i32 0, label %marked
                                   i32 1, label %pythonsig]
marked:
  %mk = call ptr @w(ptr %ctx, i64 $C_MARKED$)
  %nm = call i64 @PyDict_Size(ptr %mk)
  %some = icmp ne i64 %nm, 0
  br i1 %some, label %pythonsig, label %deeper
deeper:
  ; _steps._local.depth + 1 while they run (_steps.stepping)
  %loc = call ptr @w(ptr %ctx, i64 $C_LOCAL$)
  %dn = call ptr @w(ptr %ctx, i64 $C_DEPTH_NAME$)
  %d0 = call ptr @PyObject_GetAttr(ptr %loc, ptr %dn)
  %nod0 = icmp eq ptr %d0, null
  br i1 %nod0, label %nodepth, label %hasdepth
nodepth:
  call void @PyErr_Clear()
  br label %depth
hasdepth:
  %dv = call i64 @lz_int(ptr %ctx, ptr %d0, ptr %okp)
  %dok = load i1, ptr %okp
  %dvk = select i1 %dok, i64 %dv, i64 0
  br label %depth
depth:
  %d = phi ptr [%d0, %hasdepth], [null, %nodepth]
  %dv0 = phi i64 [%dvk, %hasdepth], [0, %nodepth]
  %d1 = add i64 %dv0, 1
  %up = call ptr @PyLong_FromLongLong(i64 %d1)
  %noup = icmp eq ptr %up, null
  br i1 %noup, label %faild, label %setup
setup:
  %s1 = call i32 @PyObject_SetAttr(ptr %loc, ptr %dn, ptr %up)
  call void @Py_DecRef(ptr %up)
  %s1err = icmp slt i32 %s1, 0
  br i1 %s1err, label %faild, label %steps
steps:
  %r = call ptr @lz_steps(ptr %ctx, ptr %n, ptr %fast, i1 1)
  %down = call ptr @PyLong_FromLongLong(i64 %dv0)
  %nodown = icmp eq ptr %down, null
  br i1 %nodown, label %failr, label %setdown
setdown:
  %s2 = call i32 @PyObject_SetAttr(ptr %loc, ptr %dn, ptr %down)
  call void @Py_DecRef(ptr %down)
  call void @Py_DecRef(ptr %d)
  %s2err = icmp slt i32 %s2, 0
  %nor = icmp eq ptr %r, null
  %bad = or i1 %s2err, %nor
  br i1 %bad, label %failrd, label %ran
ran:
  %rv = call i64 @lz_int(ptr %ctx, ptr %r, ptr %okp)
  %rok = load i1, ptr %okp
  %all = icmp sge i64 %rv, 0
  %alldone = and i1 %rok, %all
  br i1 %alldone, label %settle, label %settled
settle:
  ; _steps.settle for steps that all ran: the structure met, the steps counted
  %sz = call i64 @PySet_Size(ptr %metset)
  %full = icmp sge i64 %sz, $SEEN_MAX$
  br i1 %full, label %forget, label %add
forget:
  %fc = call i32 @PySet_Clear(ptr %metset)
  br label %add
add:
  %ad = call i32 @PySet_Add(ptr %metset, ptr %key)
  %aderr = icmp slt i32 %ad, 0
  br i1 %aderr, label %failr2, label %count
count:
  ; (_steps.COUNTS.steps)
  %cs = call ptr @w(ptr %ctx, i64 $C_COUNTS_AT$)
  %csp = getelementptr i64, ptr %cs, i64 1
  %c0 = load i64, ptr %csp
  %c1 = add i64 %c0, %rv
  store i64 %c1, ptr %csp
  call void @Py_DecRef(ptr %r)
  call void @Py_DecRef(ptr %sig)
  br label %quietly
quietly:
  br i1 %quiet, label %rollback, label %done
rollback:
  ; _program._quiet: the epoch back to %ep when only these steps made it grow (by one)
  %idict = call ptr @w(ptr %ctx, i64 $C_IR_DICT$)
  %ekey = call ptr @w(ptr %ctx, i64 $C_EPOCH_KEY$)
  %now = call ptr @PyDict_GetItemWithError(ptr %idict, ptr %ekey)
  %nonow = icmp eq ptr %now, null
  br i1 %nonow, label %error, label %compare
compare:
  %x0 = call i64 @lz_int(ptr %ctx, ptr %ep, ptr %okp)
  %ok0 = load i1, ptr %okp
  %x1 = call i64 @lz_int(ptr %ctx, ptr %now, ptr %okp)
  %ok1 = load i1, ptr %okp
  %x0p = add i64 %x0, 1
  %byone = icmp eq i64 %x1, %x0p
  %ok01 = and i1 %ok0, %ok1
  %back = and i1 %ok01, %byone
  br i1 %back, label %setback, label %done
setback:
  %sb = call i32 @PyDict_SetItem(ptr %idict, ptr %ekey, ptr %ep)
  %sberr = icmp slt i32 %sb, 0
  br i1 %sberr, label %error, label %done
done:
  ret i32 1
settled:
  ; not all ran: _program._settled(n, key, r, what, alone, epoch) takes the rest
  %fn = call ptr @w(ptr %ctx, i64 $C_SETTLED$)
  %quietw = zext i1 %quiet to i64
  %alone = call ptr @PyBool_FromLong(i64 %quietw)
  %o = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %n, ptr %key, ptr %r, ptr %what, ptr %alone, ptr %ep, ptr null)
  call void @Py_DecRef(ptr %alone)
  call void @Py_DecRef(ptr %r)
  call void @Py_DecRef(ptr %sig)
  %noo = icmp eq ptr %o, null
  br i1 %noo, label %error, label %took
took:
  call void @Py_DecRef(ptr %o)
  ret i32 1
pythonsig:
  call void @Py_DecRef(ptr %sig)
  br label %python
python:
  ret i32 0
failr2:
  call void @Py_DecRef(ptr %r)
  br label %failsig
failrd:
  call void @Py_DecRef(ptr %r)
  br label %failsig
failr:
  call void @Py_DecRef(ptr %r)
  br label %faild
faild:
  call void @Py_DecRef(ptr %d)
  br label %failsig
failsig:
  call void @Py_DecRef(ptr %sig)
  br label %error
error:
  ret i32 -1
}

; ---- materialize([a]): 1 when %a's node got its value from its signature's program
; (_program._run_known, quiet when only %a holds the node: _program._ALONE), with its
; siblings from their joint program, or in steps (lz_first); 0 when the Python function
; is needed (nothing changed but C_RECENT, emptied when it held no candidate); 2 when
; the siblings' program raised (the Python function computes %a alone); -1 on error
define internal i32 @lz_materialize1(ptr %ctx, ptr %a, ptr %what) {
entry:
  %at = call ptr @w(ptr %ctx, i64 $C_ARRAY_T$)
  %t = call ptr @type(ptr %a)
  %isa = icmp eq ptr %t, %at
  br i1 %isa, label %node, label %python
node:
  %on = call i64 @wi(ptr %ctx, i64 $C_A_NODE$)
  %n = call ptr @get(ptr %a, i64 %on)
  %c = call i64 @refs(ptr %n)
  %quiet = icmp eq i64 %c, 1
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %v = call ptr @get(ptr %n, i64 %ov)
  %novalue = icmp eq ptr %v, %none
  %osg = call i64 @wi(ptr %ctx, i64 $C_N_SIG$)
  %sig = call ptr @get(ptr %n, i64 %osg)
  %tri = call i1 @triple(ptr %ctx, ptr %sig)
  %go = and i1 %novalue, %tri
  br i1 %go, label %epoch, label %python
epoch:
  %d = call ptr @w(ptr %ctx, i64 $C_IR_DICT$)
  %key = call ptr @w(ptr %ctx, i64 $C_EPOCH_KEY$)
  %ep = call ptr @PyDict_GetItemWithError(ptr %d, ptr %key)
  %noep = icmp eq ptr %ep, null
  br i1 %noep, label %error, label %compare
compare:
  %e = call ptr @item(ptr %sig, i64 2)
  %cur = call i32 @PyObject_RichCompareBool(ptr %e, ptr %ep, i32 2)
  switch i32 %cur, label %error [i32 0, label %python
                                 i32 1, label %programs]
programs:
  ; PROGRAMS.by_signature (read each time: clearing the caches replaces it)
  %pr = call ptr @w(ptr %ctx, i64 $C_PROGRAMS$)
  %name = call ptr @w(ptr %ctx, i64 $C_BY_SIG_NAME$)
  %fast = call ptr @PyObject_GetAttr(ptr %pr, ptr %name)
  %nofast = icmp eq ptr %fast, null
  br i1 %nofast, label %error, label %held
held:
  ; the node stays held while a program runs (it may run Python code); the epoch too
  call void @Py_IncRef(ptr %n)
  call void @Py_IncRef(ptr %ep)
  %keyed = call ptr @PyList_New(i64 0)
  %nokeyed = icmp eq ptr %keyed, null
  br i1 %nokeyed, label %failheld, label %first
first:
  %a0 = call i32 @PyList_Append(ptr %keyed, ptr %n)
  %a0err = icmp slt i32 %a0, 0
  br i1 %a0err, label %failkeyed, label %scan
scan:
  %nc = call i32 @lz_candidates(ptr %ctx, ptr %a, ptr %n, ptr %ep, ptr %keyed)
  switch i32 %nc, label %failkeyed [i32 0, label %notrun
                                    i32 1, label %scanned]
scanned:
  %nk = call i64 @size(ptr %keyed)
  %some = icmp sgt i64 %nk, 1
  br i1 %some, label %joint, label %lone
joint:
  %kj = call i32 @lz_known_joint(ptr %ctx, ptr %keyed, ptr %fast)
  br label %out
lone:
  ; no candidate: C_RECENT emptied, as _live.candidates empties it, whatever runs next
  %cl = call i1 @lz_recent_cleared(ptr %ctx)
  br i1 %cl, label %run, label %failkeyed
run:
  %k1 = call i32 @lz_known(ptr %ctx, ptr %n, ptr %fast, i1 0, ptr null, i64 0, i1 %quiet)
  switch i32 %k1, label %out [i32 0, label %new]
new:
  ; a new structure: its steps (_steps.quick), natively
  %kf = call i32 @lz_first(ptr %ctx, ptr %n, ptr %fast, ptr %ep, i1 %quiet, ptr %what)
  switch i32 %kf, label %failkeyed [i32 0, label %notrun
                                    i32 1, label %out]
out:
  %k = phi i32 [%kj, %joint], [%k1, %run], [1, %new]
  call void @Py_DecRef(ptr %keyed)
  call void @Py_DecRef(ptr %ep)
  call void @Py_DecRef(ptr %n)
  call void @Py_DecRef(ptr %fast)
  ret i32 %k
notrun:
  call void @Py_DecRef(ptr %keyed)
  call void @Py_DecRef(ptr %ep)
  call void @Py_DecRef(ptr %n)
  call void @Py_DecRef(ptr %fast)
  br label %python
python:
  ret i32 0
failkeyed:
  call void @Py_DecRef(ptr %keyed)
  br label %failheld
failheld:
  call void @Py_DecRef(ptr %ep)
  call void @Py_DecRef(ptr %n)
  call void @Py_DecRef(ptr %fast)
  br label %error
error:
  ret i32 -1
}

; ---- the module function's entry for materialize(arrays, what="evaluate()"): one
; array of a known structure natively (lz_materialize1), anything else by the Python
; function (C_FALLBACK)
define internal ptr @lz_materialize_entry(ptr %ctx, ptr %args, i64 %nargs) {
entry:
  %some = icmp sge i64 %nargs, 1
  %few = icmp sle i64 %nargs, 2
  %fits = and i1 %some, %few
  br i1 %fits, label %list, label %python
list:
  %arrays = load ptr, ptr %args
  %lt = call ptr @type(ptr %arrays)
  %ltt = call ptr @w(ptr %ctx, i64 $C_LIST_T$)
  %isl = icmp eq ptr %lt, %ltt
  br i1 %isl, label %one, label %python
one:
  %count = call i64 @size(ptr %arrays)
  %single = icmp eq i64 %count, 1
  br i1 %single, label %first, label %python
first:
  %a = call ptr @litem(ptr %arrays, i64 0)
  call void @Py_IncRef(ptr %a)
  %two = icmp eq i64 %nargs, 2
  %wp = getelementptr ptr, ptr %args, i64 1
  %given = load ptr, ptr %wp
  %dflt = call ptr @w(ptr %ctx, i64 $C_WHAT$)
  %what = select i1 %two, ptr %given, ptr %dflt
  %r = call i32 @lz_materialize1(ptr %ctx, ptr %a, ptr %what)
  switch i32 %r, label %faila [i32 0, label %pythona
                               i32 1, label %done
                               i32 2, label %pythona]
done:
  ; [a._node.value]
  %on = call i64 @wi(ptr %ctx, i64 $C_A_NODE$)
  %n = call ptr @get(ptr %a, i64 %on)
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %v = call ptr @get(ptr %n, i64 %ov)
  call void @Py_IncRef(ptr %v)
  call void @Py_DecRef(ptr %a)
  %out = call ptr @PyList_New(i64 1)
  %noout = icmp eq ptr %out, null
  br i1 %noout, label %failv, label %fill
fill:
  %put = call i32 @PyList_SetItem(ptr %out, i64 0, ptr %v)
  ret ptr %out
failv:
  call void @Py_DecRef(ptr %v)
  ret ptr null
pythona:
  call void @Py_DecRef(ptr %a)
  br label %python
python:
  %fn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %o = call ptr @PyObject_Vectorcall(ptr %fn, ptr %args, i64 %nargs, ptr null)
  ret ptr %o
faila:
  call void @Py_DecRef(ptr %a)
  ret ptr null
}

; ---- float(x) and bool(x) natively (FLOAT, BOOL: Array's __float__ and __bool__): a 0-d
; value at once; a 0-d array without one read by the native materialize (C_MATERIALIZE_FN,
; with C_WHAT as what), as _scalar reads it; the node is let go before (materialize
; tells a node only its Array holds by its references).  Anything else (other shapes,
; complex for float, a value of another type, a scalar leaf): the Python method
define internal ptr @lz_read_scalar(ptr %ctx, ptr %self, i1 %isfloat) {
entry:
  %n = call ptr @lz_node_of(ptr %ctx, ptr %self)
  %unset = icmp eq ptr %n, null
  br i1 %unset, label %python, label %typed
typed:
  %od = call i64 @wi(ptr %ctx, i64 $C_N_DTYPE$)
  %d = call ptr @get(ptr %n, i64 %od)
  %cx = call ptr @w(ptr %ctx, i64 $C_COMPLEX$)
  %c = call i32 @PySet_Contains(ptr %cx, ptr %d)
  %iscx = icmp ne i32 %c, 0
  %nofloat = and i1 %iscx, %isfloat
  br i1 %nofloat, label %pythonn, label %value
value:
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %v = call ptr @get(ptr %n, i64 %ov)
  %vt = call ptr @type(ptr %v)
  %ndt = call ptr @w(ptr %ctx, i64 $C_NDARRAY_T$)
  %isnd = icmp eq ptr %vt, %ndt
  br i1 %isnd, label %rank, label %lazy
rank:
  %ndp = getelementptr i8, ptr %v, i64 $ARRAY_NDIM$
  %nd = load i32, ptr %ndp
  %zero = icmp eq i32 %nd, 0
  br i1 %zero, label %convert, label %pythonn
lazy:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %nov = icmp eq ptr %v, %none
  %oo = call i64 @wi(ptr %ctx, i64 $C_N_OP$)
  %op = call ptr @get(ptr %n, i64 %oo)
  %sop = call ptr @w(ptr %ctx, i64 $C_SCALAR_OP$)
  %notscalar = icmp ne ptr %op, %sop
  %go = and i1 %nov, %notscalar
  br i1 %go, label %shape, label %pythonn
shape:
  %sh = call ptr @lz_shape_of(ptr %ctx, ptr %n)
  %nosh = icmp eq ptr %sh, null
  br i1 %nosh, label %pythonn, label %empty
empty:
  %r = call i64 @size(ptr %sh)
  %zd = icmp eq i64 %r, 0
  br i1 %zd, label %read, label %pythonn
read:
  ; (the node let go first: materialize tells a node only its Array holds by its count)
  call void @Py_DecRef(ptr %n)
  %v0 = call ptr @lz_materialized(ptr %ctx, ptr %self)
  %nov0 = icmp eq ptr %v0, null
  br i1 %nov0, label %error, label %conv0
conv0:
  %o0 = call ptr @lz_convert(ptr %v0, i1 %isfloat)
  call void @Py_DecRef(ptr %v0)
  ret ptr %o0
convert:
  %o = call ptr @lz_convert(ptr %v, i1 %isfloat)
  call void @Py_DecRef(ptr %n)
  ret ptr %o
error:
  ret ptr null
pythonn:
  call void @Py_DecRef(ptr %n)
  br label %python
python:
  %pfn = call ptr @w(ptr %ctx, i64 $C_FALLBACK$)
  %p = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %pfn, ptr %self, ptr null)
  ret ptr %p
}

; ---- numpy.asarray(x) natively (ARRAY: Array's __array__ called without arguments): a
; read-only view of the value, as the Python method returns it; an array without a value
; read by the native materialize first (C_MATERIALIZE_FN, with C_WHAT as what).  NULL
; without an error set: the Python method decides (no node, a value that is no ndarray)
define internal ptr @lz_array(ptr %ctx, ptr %self) {
entry:
  %n = call ptr @lz_node_of(ptr %ctx, ptr %self)
  %unset = icmp eq ptr %n, null
  br i1 %unset, label %python, label %value
value:
  %ov = call i64 @wi(ptr %ctx, i64 $C_N_VALUE$)
  %v = call ptr @get(ptr %n, i64 %ov)
  %ndt = call ptr @w(ptr %ctx, i64 $C_NDARRAY_T$)
  %vt = call ptr @type(ptr %v)
  %isnd = icmp eq ptr %vt, %ndt
  br i1 %isnd, label %held, label %lazy
held:
  ; (the value held while the view is made: the view's method may run the collector)
  call void @Py_IncRef(ptr %v)
  call void @Py_DecRef(ptr %n)
  br label %view
lazy:
  %none = call ptr @w(ptr %ctx, i64 $C_NONE$)
  %nov = icmp eq ptr %v, %none
  ; (the node let go first: materialize tells a node only its Array holds by its count)
  call void @Py_DecRef(ptr %n)
  br i1 %nov, label %read, label %python
read:
  %v0 = call ptr @lz_materialized(ptr %ctx, ptr %self)
  %nov0 = icmp eq ptr %v0, null
  br i1 %nov0, label %error, label %computed
computed:
  %v0t = call ptr @type(ptr %v0)
  %isnd0 = icmp eq ptr %v0t, %ndt
  br i1 %isnd0, label %view, label %other
other:
  ; (computed now, but not to an ndarray: the Python method reads it)
  call void @Py_DecRef(ptr %v0)
  br label %python
view:
  %src = phi ptr [%v, %held], [%v0, %computed]
  %vn = call ptr @w(ptr %ctx, i64 $C_VIEW_NAME$)
  %m = call ptr @PyObject_GetAttr(ptr %src, ptr %vn)
  call void @Py_DecRef(ptr %src)
  %nom = icmp eq ptr %m, null
  br i1 %nom, label %error, label %callview
callview:
  %ro = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %m, ptr null)
  call void @Py_DecRef(ptr %m)
  %noro = icmp eq ptr %ro, null
  br i1 %noro, label %error, label %readonly
readonly:
  ; numpy's PyArray_CLEARFLAGS(ro, NPY_ARRAY_WRITEABLE): the flags word of a new view
  %fp = getelementptr i8, ptr %ro, i64 $ARRAY_FLAGS$
  %fl = load i32, ptr %fp
  %cl = and i32 %fl, $NPY_NOT_WRITEABLE$
  store i32 %cl, ptr %fp
  ret ptr %ro
error:
  ret ptr null
python:
  ret ptr null
}

; ---- materialize([%self], C_WHAT)[0] by C_MATERIALIZE_FN (the native materialize), as the
; Python methods read a lazy array: the value, a new reference; NULL on error
define internal ptr @lz_materialized(ptr %ctx, ptr %self) {
entry:
  ; ([self], a list, as the Python methods pass it)
  %lst = call ptr @PyList_New(i64 1)
  %nolst = icmp eq ptr %lst, null
  br i1 %nolst, label %error, label %fill
fill:
  call void @Py_IncRef(ptr %self)
  %set = call i32 @PyList_SetItem(ptr %lst, i64 0, ptr %self)
  %fn = call ptr @w(ptr %ctx, i64 $C_MATERIALIZE_FN$)
  %what = call ptr @w(ptr %ctx, i64 $C_WHAT$)
  %res = call ptr (ptr, ...) @PyObject_CallFunctionObjArgs(ptr %fn, ptr %lst, ptr %what, ptr null)
  call void @Py_DecRef(ptr %lst)
  %nores = icmp eq ptr %res, null
  br i1 %nores, label %error, label %first
first:
  %zi = call ptr @PyLong_FromLongLong(i64 0)
  %v = call ptr @PyObject_GetItem(ptr %res, ptr %zi)
  call void @Py_DecRef(ptr %zi)
  call void @Py_DecRef(ptr %res)
  ret ptr %v
error:
  ret ptr null
}

; ---- float(%v) or bool(%v): new reference, NULL on error
define internal ptr @lz_convert(ptr %v, i1 %isfloat) {
entry:
  br i1 %isfloat, label %float, label %bool
float:
  %f = call ptr @PyNumber_Float(ptr %v)
  ret ptr %f
bool:
  %b = call i32 @PyObject_IsTrue(ptr %v)
  %bad = icmp slt i32 %b, 0
  br i1 %bad, label %error, label %make
make:
  %b64 = sext i32 %b to i64
  %r = call ptr @PyBool_FromLong(i64 %b64)
  ret ptr %r
error:
  ret ptr null
}

declare ptr @PyNumber_Float(ptr)
declare ptr @PyObject_GetItem(ptr, ptr)
