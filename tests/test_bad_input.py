"""Bad input at the API: one test per row of the README's "Errors for bad input" table.

Each test checks the exception type, that the message says what was expected
(or what was wrong) and what was given, and, where the operation could have
changed something, that nothing half-recorded remains: the operands keep their
nodes and still evaluate to their old values.
"""
import re
import warnings

import numpy as np
import pytest

import lazyarray as xp
from lazyarray._memory import machine_memory

from helpers import check


def unchanged(x, node, value):
    """``x`` still has ``node`` and evaluates to ``value``."""
    assert x._node is node
    np.testing.assert_array_equal(np.asarray(x), value)


# --------------------------------------------------------------------------- dtypes

@pytest.mark.parametrize("dtype", ["float16", "datetime64[s]", "timedelta64[s]", "U3", "S3",
                                   [("a", "f8")], "longdouble", "clongdouble"])
def test_unsupported_dtype(dtype):
    if np.dtype(dtype) in (np.dtype("float64"), np.dtype("complex128")):
        pytest.skip("long double is double on this platform")
    with pytest.raises(TypeError, match=r"unsupported dtype .*lazyarray supports bool, int8"):
        xp.asarray(np.zeros(2, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float64, "float64", float, None.__class__])
def test_dtype_argument_not_a_lazyarray_dtype(dtype):
    for f in (lambda: xp.asarray([1.0], dtype=dtype), lambda: xp.zeros(2, dtype=dtype),
              lambda: xp.astype(xp.ones(2), dtype), lambda: xp.placeholder((2,), dtype)):
        with pytest.raises(TypeError, match=r"dtype must be a lazyarray dtype \(e\.g\. "
                                            r"lazyarray\.float64\), got"):
            f()


# --------------------------------------------------------------------------- object arrays

@pytest.mark.parametrize("obj, shown", [
    ([1, None], "None of type NoneType"), ([[1.0, 2.0], [3.0, object()]], "of type object"),
    ([1, "a"], "'a' of type str"), ([{1: 2}], "of type dict")])
def test_object_elements(obj, shown):
    with pytest.raises(TypeError, match=re.escape(shown) + ".*expected .*bool, int, float or "
                                                           "complex"):
        xp.asarray(obj)


@pytest.mark.parametrize("obj", [object(), None, {1: 2}, {1, 2}, (i for i in range(3))])
def test_objects_that_are_not_arrays(obj):
    with pytest.raises(TypeError, match=f"cannot make an array from a value of type "
                                        f"{type(obj).__name__}; expected"):
        xp.asarray(obj)


def test_numpy_object_array():
    with pytest.raises(TypeError, match="unsupported dtype object"):
        xp.asarray(np.array([1, None], dtype=object))


# --------------------------------------------------------------------------- ragged lists

@pytest.mark.parametrize("obj", [[[1, 2], [3]], [[1.0], 2.0], [[[1], [2]], [[3], [4, 5]]],
                                 [np.zeros(2), np.zeros(3)]])
def test_ragged_nested_lists(obj):
    with pytest.raises(ValueError, match="nested sequences must be rectangular"):
        xp.asarray(obj)


# --------------------------------------------------------------------------- strings

def test_strings():
    with pytest.raises(TypeError, match="strings are not supported, got 'abc'; expected"):
        xp.asarray("abc")
    with pytest.raises(TypeError, match="strings are not supported"):
        xp.asarray(b"abc")
    with pytest.raises(TypeError, match="unsupported element 'a' of type str"):
        xp.asarray([["a", "b"]])
    with pytest.raises(TypeError, match="unsupported dtype <U1"):
        xp.asarray(np.array(["a"]))
    with pytest.raises(TypeError, match=r"full\(\): fill_value must be a Python bool, int, "
                                        "float or complex, got str"):
        xp.full((2,), "a", dtype=xp.float64)
    x = xp.ones(3)
    with pytest.raises(TypeError, match=r"operator \+ \(add\) expects a lazyarray Array or a "
                                        "Python bool, int, float or complex as the other "
                                        "operand, got str"):
        x + "a"
    with pytest.raises(TypeError, match="got str"):
        "a" * x
    with pytest.raises(TypeError, match=r"__setitem__ expects an Array or a Python scalar "
                                        "value, got str"):
        x[0] = "a"
    with pytest.raises(TypeError, match=r"equal\(\) expects lazyarray Arrays or Python scalars"):
        xp.equal(x, "a")


# --------------------------------------------------------------------------- devices

@pytest.mark.parametrize("device", ["gpu", "cuda:0", "meta", 1])
def test_devices_other_than_cpu(device):
    x = xp.ones(2)
    for f in (lambda: xp.asarray([1.0], device=device), lambda: xp.zeros(2, device=device),
              lambda: x.to_device(device), lambda: xp.astype(x, xp.float32, device=device),
              lambda: xp.ones_like(x, device=device)):
        with pytest.raises(ValueError, match=r"unsupported device .*; lazyarray runs on 'cpu' "
                                             "only"):
            f()
    assert x.device == "cpu" and x.to_device("cpu") is x and x.to_device(x.device) is x


# --------------------------------------------------------------------------- other libraries

class OtherArray:
    """An array of some other array API library."""

    def __array_namespace__(self, api_version=None):
        return None


@pytest.mark.parametrize("other, name", [
    (np.ones(3), "numpy.ndarray"), (np.float32(2), "numpy.float32"), (np.int64(2), "numpy.int64"),
    ([1.0, 2.0, 3.0], "list"), ((1.0, 2.0, 3.0), "tuple"), (OtherArray(), "OtherArray")])
def test_arrays_of_other_libraries_in_operations(other, name):
    x = xp.asarray([1.0, 2.0, 3.0])
    node = x._node
    msg = rf"cannot combine a lazyarray Array with a ([\w.]*\.)?{re.escape(name)}: .* convert it " \
        "with"
    for f in (lambda: x + other, lambda: other + x, lambda: x * other, lambda: x @ other,
              lambda: x == other, lambda: x < other, lambda: xp.add(x, other),
              lambda: xp.where(x > 1.0, x, other)):
        with pytest.raises(TypeError, match=msg):
            f()
    with pytest.raises(TypeError, match=msg):
        x += other
    with pytest.raises(TypeError, match=msg):
        x[0] = other
    unchanged(x, node, [1.0, 2.0, 3.0])


def test_numpy_functions_on_arrays():
    x = xp.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match="does not support ufuncs"):
        np.sin(x)
    # explicit conversions still work, and Python floats (numpy float64 is one) combine
    np.testing.assert_array_equal(np.asarray(x) + np.ones(2), [2.0, 3.0])
    check(np.float64(2.0) * x, np.array([2.0, 4.0]))
    check(x + xp.asarray(np.ones(2)), np.array([2.0, 3.0]))


@pytest.mark.parametrize("f, fname", [(xp.sin, "sin"), (xp.sum, "sum"),
                                      (xp.zeros_like, "zeros_like"),
                                      (lambda v: xp.reshape(v, (2,)), "reshape"),
                                      (lambda v: xp.concat([xp.ones(2), v]), "concat")])
def test_functions_given_a_numpy_array(f, fname):
    with pytest.raises(TypeError, match=rf"{fname}\(\) expects a lazyarray Array.*got ndarray"):
        f(np.ones(2))


# --------------------------------------------------------------------------- argument types

@pytest.mark.parametrize("call, msg", [
    (lambda: xp.zeros(2.5), r"zeros\(\): shape must be an int or a tuple of ints, got float"),
    (lambda: xp.ones(None), r"ones\(\): shape must be an int or a tuple of ints, got NoneType"),
    (lambda: xp.zeros((2, 1.5)), r"zeros\(\): shape entries must be ints, got 1.5"),
    (lambda: xp.reshape(xp.ones(4), 4), r"reshape\(\): shape must be a tuple of ints, got int"),
    (lambda: xp.reshape(xp.ones(4), (2.0, 2)), r"reshape\(\): shape entries must be ints"),
    (lambda: xp.broadcast_to(xp.ones(4), 4), r"broadcast_to\(\): shape must be a tuple of ints"),
    (lambda: xp.sum(xp.ones(4), axis="0"), r"sum\(\): axis must be None, an int or a tuple of "
                                           "ints, got str"),
    (lambda: xp.take(xp.ones(4), xp.asarray([0]), axis=0.0), r"take\(\): axis must be an int, "
                                                             "got float"),
    (lambda: xp.eye(3, k=1.5), r"eye\(\): k must be an int, got float"),
    (lambda: xp.arange("a"), r"arange\(\): stop must be a Python int or float, got str"),
    (lambda: xp.full((2,), None), r"full\(\): fill_value must be a Python bool, int, float or "
                                  "complex, got NoneType"),
    (lambda: xp.full((2,), 1.5, dtype=xp.int64), r"full\(\): a float fill_value needs a "
                                                 "floating-point dtype, got int64"),
    (lambda: xp.full((2,), 1j, dtype=xp.float64), r"a complex fill_value needs a complex dtype"),
    (lambda: xp.tile(xp.ones(2), (1.5,)), r"tile\(\): repetitions must be a tuple of ints"),
    (lambda: xp.placeholder(None), r"placeholder\(\): shape must be a tuple of ints and names"),
    (lambda: xp.compile(3), r"compile\(\): outputs must be an Array or a non-empty list/tuple "
                            "of Arrays, got int"),
    (lambda: xp.evaluate(np.ones(2)), r"evaluate\(\) expects lazyarray Arrays, got ndarray"),
    (lambda: xp.ones(2)[1.5], "only integers, slices, ..., None and integer arrays are valid "
                              "indices; got float at axis 0"),
    (lambda: xp.ones(2)[xp.asarray([0.0])], "index arrays must have an integer dtype, got "
                                            "float64"),
    (lambda: xp.sin(xp.asarray([1, 2])), r"sin\(\) needs floating input, got dtype int64"),
    (lambda: xp.asarray([1]) + xp.asarray([1.0]), "int64 and float64 cannot be type promoted"),
    (lambda: xp.asarray([1j], dtype=xp.int64), r"cannot convert these values to the dtype int64"),
])
def test_wrong_argument_types(call, msg):
    with pytest.raises((TypeError, IndexError), match=msg):
        call()


# --------------------------------------------------------------------------- axes

@pytest.mark.parametrize("call", [
    lambda x: xp.sum(x, axis=2), lambda x: xp.sum(x, axis=(0, -3)), lambda x: xp.max(x, axis=5),
    lambda x: xp.argmax(x, axis=2), lambda x: xp.cumulative_sum(x, axis=-3),
    lambda x: xp.take(x, xp.asarray([0]), axis=2), lambda x: xp.concat([x, x], axis=2),
    lambda x: xp.stack([x, x], axis=4), lambda x: xp.expand_dims(x, axis=3),
    lambda x: xp.squeeze(x, axis=2), lambda x: xp.flip(x, axis=2), lambda x: xp.roll(x, 1, axis=2),
    lambda x: xp.moveaxis(x, 2, 0), lambda x: xp.permute_dims(x, (0, 2)),
    lambda x: xp.sort(x, axis=2), lambda x: xp.argsort(x, axis=-3), lambda x: xp.unstack(x, axis=2),
    lambda x: xp.vecdot(x, x, axis=2), lambda x: xp.count_nonzero(x, axis=2),
    lambda x: xp.linalg.vector_norm(x, axis=2),
    lambda x: xp.fft.fft(xp.astype(x, xp.complex128), axis=2),
])
def test_out_of_range_axes(call):
    x = xp.ones((2, 3))
    with pytest.raises(ValueError, match=r"axis -?\d is out of bounds for array of dimension \d; "
                                         r"expected an int in \[-\d, \d\]") as info:
        call(x)
    assert isinstance(info.value, IndexError)  # numpy's AxisError is both, so is this one


def test_axis_of_a_zero_d_array_and_repeated_axes():
    with pytest.raises(ValueError,
                       match=r"out of bounds for array of dimension 0 \(a 0-d array has no axes\)"):
        xp.sort(xp.asarray(1.0))
    with pytest.raises(ValueError, match=r"sum\(\): repeated axis in \(0, -2\)"):
        xp.sum(xp.ones((2, 3)), axis=(0, -2))
    with pytest.raises(ValueError, match=r"not a permutation"):
        xp.permute_dims(xp.ones((2, 3)), (0, 0))


# --------------------------------------------------------------------------- bounds

@pytest.mark.parametrize("key, axis, index, size", [
    (5, 0, 5, 3), (-4, 0, -4, 3), ((0, 4), 1, 4, 4), ((slice(None), -5), 1, -5, 4)])
def test_integer_index_out_of_range(key, axis, index, size):
    x = xp.reshape(xp.arange(12.0), (3, 4))
    node = x._node
    msg = f"index {index} is out of bounds for axis {axis} with size {size}"
    with pytest.raises(IndexError, match=msg):
        x[key]
    with pytest.raises(IndexError, match=msg):
        x[key] = 1.0
    unchanged(x, node, np.arange(12.0).reshape(3, 4))


def test_gather_indices_known_while_recording():
    a = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a)
    node = x._node
    cases = [
        (lambda: xp.take(x, xp.asarray([0, 7]), axis=1),
         r"take\(\): index 7 .* axis 1 with size 4"),
        (lambda: xp.take(x, xp.asarray([-4]), axis=0), r"take\(\): index -4 .* axis 0 with size 3"),
        (lambda: xp.take_along_axis(x, xp.asarray([[0], [9], [1]]), axis=1),
         r"take_along_axis\(\): index 9 .* axis 1 with size 4"),
        (lambda: x[xp.asarray([1, 3])], r"index 3 is out of bounds for axis 0 with size 3"),
        (lambda: x[:, np.array([0, -5])], r"index -5 is out of bounds for axis 1 with size 4"),
        (lambda: x[xp.asarray([0]), xp.asarray([4])], r"index 4 is out of bounds for axis 1"),
    ]
    for call, msg in cases:
        with pytest.raises(IndexError, match=msg):
            call()
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        x[xp.asarray([0, 3])] = 1.0
    with pytest.raises(IndexError, match="index 8 is out of bounds for axis 1 with size 4"):
        x[1, xp.asarray([8])] = xp.asarray([1.0])
    unchanged(x, node, a)
    check(xp.take(x, xp.asarray([-1, 0]), axis=1), np.take(a, [-1, 0], axis=1))


def test_gather_indices_computed_are_checked_when_run():
    a = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a)
    i = xp.asarray([0, 1]) * 4  # computed: values unknown until the program runs
    for y in (xp.take(x, i, axis=1), xp.take_along_axis(x, xp.reshape(i, (1, 2)), axis=1),
              x[:, i], x[i - 9, 0]):
        with pytest.raises(IndexError, match=r"index -?\d+ is out of bounds for .*size \d"):
            np.asarray(y)
        assert y._node.value is None  # nothing half-evaluated: it raises again
        with pytest.raises(IndexError):
            np.asarray(y)
    check(xp.take(x, i // 2, axis=1), a[:, [0, 2]])  # other programs are unaffected


def test_gather_runtime_error_names_the_axis():
    x = xp.reshape(xp.arange(12.0), (3, 4))
    with pytest.raises(IndexError, match="axis 1"):
        np.asarray(xp.take(x, xp.asarray([0, 1]) * 4, axis=1))


# --------------------------------------------------------------------------- negative sizes

@pytest.mark.parametrize("call, msg", [
    (lambda: xp.zeros((2, -1)), r"zeros\(\): negative dimensions are not allowed, got \(2, -1\)"),
    (lambda: xp.full(-3, 1.0), r"full\(\): negative dimensions"),
    (lambda: xp.eye(-2), r"eye\(\): negative dimensions"),
    (lambda: xp.linspace(0, 1, -1), r"linspace\(\): num must be a non-negative int, got -1"),
    (lambda: xp.broadcast_to(xp.ones(3), (-3,)), r"broadcast_to\(\): negative size -3"),
    (lambda: xp.reshape(xp.ones(4), (-2, -2)), r"reshape\(\): negative size -2 .*only -1"),
    (lambda: xp.placeholder((-1,)), r"placeholder\(\): shape entries must be non-negative"),
    (lambda: xp.tile(xp.ones(3), (-1,)), r"tile\(\): repetitions must be non-negative"),
    (lambda: xp.repeat(xp.ones(3), -1), r"repeat\(\): repeats must be non-negative, got -1"),
    (lambda: xp.fft.fft(xp.ones(3, dtype=xp.complex128), n=-1), r"n must be a positive int"),
])
def test_negative_sizes(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()


# --------------------------------------------------------------------------- reshape

def test_reshape_to_an_incompatible_size():
    x = xp.arange(6.0)
    with pytest.raises(ValueError, match=r"cannot reshape array of shape \(6,\) into \(4, 2\)"):
        xp.reshape(x, (4, 2))
    with pytest.raises(ValueError, match=r"cannot reshape array of size 6 into \(4, -1\)"):
        xp.reshape(x, (4, -1))
    with pytest.raises(ValueError, match=r"at most one -1"):
        xp.reshape(x, (-1, -1))
    # symbolic sizes: checked when the program is bound
    p = xp.placeholder(("n",), name="p")
    prog = xp.compile(xp.reshape(p, (2, 3)) * 2.0, inputs=[p])
    with pytest.raises(ValueError, match=r"cannot reshape array of shape \(4,\) into shape "
                                         r"\(2, 3\)"):
        prog(np.ones(4))
    check(prog(np.arange(6.0)), np.arange(6.0).reshape(2, 3) * 2.0)


# --------------------------------------------------------------------------- shape mismatches

def test_shape_mismatches_caught_while_recording():
    a, b = xp.ones((2, 3)), xp.ones((4,))
    cases = [
        (lambda: a + b, r"shapes \(2, 3\), \(4,\) cannot be broadcast together"),
        (lambda: xp.where(a > 0, a, b), "cannot be broadcast together"),
        (lambda: a @ a, r"matmul\(\): inner sizes differ: x1 has shape \(2, 3\), x2 has shape"),
        (lambda: xp.concat([a, xp.ones((2, 4))]), r"concat\(\): shapes \(2, 3\) and \(2, 4\) "
                                                  "differ outside axis 0"),
        (lambda: xp.stack([a, xp.ones((3, 2))]), r"stack\(\): all arrays must have the same "
                                                 "shape"),
        (lambda: xp.broadcast_to(a, (3, 3)), r"cannot broadcast shape \(2, 3\) to \(3, 3\)"),
        (lambda: xp.vecdot(a, b), "cannot be broadcast together"),
        (lambda: xp.tensordot(a, a, axes=1), r"tensordot\(\): contracted sizes differ"),
        (lambda: xp.linalg.solve(xp.eye(2), xp.ones(3)), r"solve\(\): .* needs 2 rows"),
    ]
    for call, msg in cases:
        with pytest.raises(ValueError, match=msg):
            call()


def test_setitem_shape_mismatch_leaves_the_array_unchanged():
    x = xp.reshape(xp.arange(6.0), (2, 3))
    node = x._node
    with pytest.raises(ValueError, match=r"__setitem__\(\): cannot assign a value of shape "
                                         r"\(4,\) to the selected region of shape \(2, 2\)"):
        x[:, 1:] = xp.ones(4)
    with pytest.raises(ValueError, match=r"cannot assign a value of shape \(3,\) to the \(2,\) "
                                         "elements selected by the index arrays"):
        x[xp.asarray([0, 1]), 0] = xp.ones(3)
    with pytest.raises(IndexError, match=r"boolean index of shape \(3,\) does not match"):
        x[xp.asarray([True, False, True])] = 1.0
    with pytest.raises(TypeError, match="in-place operation would change dtype/shape"):
        x += xp.ones((3, 2, 3))
    unchanged(x, node, np.arange(6.0).reshape(2, 3))


# --------------------------------------------------------------------------- huge requests

@pytest.mark.parametrize("call, what", [
    (lambda: xp.ones(2**62), r"ones\(\): an array of shape \(4611686018427387904,\) and dtype "
                             r"float64 would take .* more than the largest possible array"),
    (lambda: xp.zeros(2**64), r"zeros\(\): size 18446744073709551616 .* larger than the "
                              "largest possible size"),
    (lambda: xp.broadcast_to(xp.ones(1), (2**32, 2**32)),
     r"broadcast_to\(\): shape \(4294967296, 4294967296\) has 18446744073709551616 elements"),
    (lambda: xp.tile(xp.ones(2**20), (2**44,)), "more than any array can have"),
    (lambda: xp.fft.fft(xp.ones(3, dtype=xp.complex128), n=2**70), r"fft.fft\(\): size"),
    (lambda: xp.placeholder((2**40, 2**40)), r"placeholder\(\): shape .* elements"),
])
def test_impossible_sizes(call, what):
    with pytest.raises(ValueError, match=what):
        call()


needs_limit = pytest.mark.skipif(machine_memory() is None or machine_memory() > 2**60,
                                 reason="this platform does not say how much memory it has")


@needs_limit
@pytest.mark.parametrize("call, what", [
    (lambda: xp.zeros((10**6, 10**6)), r"zeros\(\) needs 7.3 TiB .* for an array of shape "
                                       r"\(1000000, 1000000\) and dtype float64, more than "
                                       "this machine's"),
    (lambda: xp.empty((10**7, 10**7), dtype=xp.uint8), r"empty\(\) needs"),
    (lambda: xp.eye(10**7), r"eye\(\) needs"),
    (lambda: xp.arange(10**14), r"arange\(\) needs"),
    (lambda: xp.full((2**40,), 1.0), r"full\(\) needs"),
])
def test_creation_larger_than_the_machine(call, what):
    with pytest.raises(MemoryError, match=what + ".*nothing was allocated or computed"):
        call()


@needs_limit
def test_lazy_result_larger_than_the_machine():
    x = xp.asarray([1.0, 2.0])
    big = xp.broadcast_to(xp.reshape(x, (2, 1)), (2, 10**13)) + 1.0  # 160 TB: recorded fine
    assert big.shape == (2, 10**13)
    for materialize in (np.asarray, lambda a: a.tolist(), repr, xp.evaluate):
        with pytest.raises(MemoryError, match=r"needs 145.5 TiB .* shape \(2, 10000000000000\) "
                                              "and dtype float64, more than this machine's"):
            materialize(big)
    assert big._node.value is None
    # the lazy array still works where no buffer of its size is needed
    check(xp.sum(big[:, :5], axis=1), np.array([10.0, 15.0]))
    # programs: bound at a size that does not fit
    n = xp.placeholder(("n",), name="n")
    prog = xp.compile(xp.reshape(n, (-1, 1)) * xp.reshape(n, (1, -1)), inputs=[n])
    with pytest.raises(MemoryError, match=r"running this program with sizes \{'n': 10000000\} "
                                          "needs 727.6 TiB"):
        prog(np.ones(10**7))
    check(prog(np.ones(3)), np.ones((3, 3)))


# --------------------------------------------------------------------------- Python ints

def test_python_ints_out_of_range():
    with pytest.raises(OverflowError, match="a Python int does not fit in the dtype int64"):
        xp.asarray(2**70)
    with pytest.raises(OverflowError, match="a Python int does not fit in int64 or uint64"):
        xp.asarray([1, 2**70])
    with pytest.raises(OverflowError, match="does not fit in the dtype uint8"):
        xp.asarray([-1], dtype=xp.uint8)
    with pytest.raises(OverflowError, match=r"full\(\): fill_value 300 is out of range for int8 "
                                            r"\[-128, 127\]"):
        xp.full((2,), 300, dtype=xp.int8)
    x = xp.asarray([1, 2], dtype=xp.int8)
    with pytest.raises(OverflowError, match="Python int 300 is out of bounds for int8"):
        x + 300


# --------------------------------------------------------------------------- programs

def test_program_inputs_of_the_wrong_kind():
    p = xp.placeholder(("n",), name="p")
    prog = xp.compile(xp.sin(p), inputs=[p])
    prepared = prog.prepare(np.zeros(3))
    cases = [
        (lambda: prog(np.zeros(3, np.float32)), r"input 0 \('p'\): dtype mismatch: expected "
                                                "float64, got float32"),
        (lambda: prog(np.zeros((3, 2))), r"input 0 \('p'\): rank mismatch: expected shape "
                                         r"\(n,\), got \(3, 2\)"),
        (lambda: prepared(np.zeros((3, 1))), r"rank mismatch: expected shape \(n,\), got "
                                             r"\(3, 1\)"),
        (lambda: prepared(np.zeros(3, np.int64)), "dtype mismatch: expected float64, got int64"),
        (lambda: prog(np.zeros(3), np.zeros(3)), r"expected 1 input\(s\) for placeholders"),
    ]
    for call, msg in cases:
        with pytest.raises(ValueError, match=msg):
            call()
    with pytest.raises(TypeError, match="strings are not supported"):
        prog("abc")
    with pytest.raises(xp.ConcretizationError, match=r"float\(\) needs the value of an array "
                                                     "that depends on placeholder 'p'"):
        float(xp.sum(p))
    check(prepared(np.zeros(3)), np.zeros(3))


# --------------------------------------------------------------------------- 0-size and 0-d

def _cases_0size():
    e = np.zeros((0, 3))
    i = np.zeros((0,), dtype=np.int64)
    return [
        ("sin", lambda m, a: m.sin(a), e), ("add", lambda m, a: a + a * 2.0, e),
        ("sum0", lambda m, a: m.sum(a, axis=0), e), ("sum1", lambda m, a: m.sum(a, axis=1), e),
        ("prod", lambda m, a: m.prod(a), e), ("max1", lambda m, a: m.max(a, axis=1), e),
        ("any", lambda m, a: m.any(a > 0), e), ("all", lambda m, a: m.all(a > 0), e),
        ("cumsum", lambda m, a: (m.cumulative_sum if m is xp else m.cumsum)(a, axis=0), e),
        ("sort", lambda m, a: m.sort(a, axis=0), e),
        ("argsort", lambda m, a: m.argsort(a, axis=0), e),
        ("argmax1", lambda m, a: m.argmax(a, axis=1), e),
        ("concat", lambda m, a: (m.concat if m is xp else m.concatenate)([a, a]), e),
        ("stack", lambda m, a: m.stack([a, a], axis=1), e),
        ("reshape", lambda m, a: m.reshape(a, (3, 0)), e),
        ("permute", lambda m, a: (m.permute_dims if m is xp else m.transpose)(a, (1, 0)), e),
        ("flip", lambda m, a: m.flip(a, axis=0), e), ("roll", lambda m, a: m.roll(a, 1, axis=0), e),
        ("tile", lambda m, a: m.tile(a, (2, 2)), e),
        ("repeat", lambda m, a: m.repeat(a, 2, axis=1), e),
        ("where", lambda m, a: m.where(a > 0, a, -a), e),
        ("matmul", lambda m, a: a @ m.ones((3, 2)), e),
        ("matmul_inner", lambda m, a: m.matmul(m.ones((2, 0)), a), e),
        ("vecdot", lambda m, a: m.vecdot(a, a) if m is xp else np.sum(a * a, axis=-1), e),
        ("take", lambda m, a: m.take(a, m.asarray(i) if m is xp else i, axis=0), e),
        ("take_along", lambda m, a: m.take_along_axis(a, m.zeros((0, 3), dtype=m.int64), axis=0),
         e),
        ("index", lambda m, a: a[(m.asarray(i) if m is xp else i), 1:], e),
        ("slice", lambda m, a: a[:, ::-2], e), ("clip", lambda m, a: m.clip(a, 0.0, 1.0), e),
        ("count_nonzero", lambda m, a: m.count_nonzero(a), e),
        ("var", lambda m, a: m.var(a, axis=1), e), ("std1", lambda m, a: m.std(a, axis=1), e),
        ("unique", lambda m, a: (m.unique_values if m is xp else m.unique)(a), e),
        ("nonzero", lambda m, a: m.nonzero(a)[0], e),
        ("mask", lambda m, a: a[a > 0], e),
        ("isin", lambda m, a: m.isin(a, m.asarray([1.0]) if m is xp else [1.0]), e),
        ("searchsorted",
         lambda m, a: m.searchsorted(a[:, 0], m.asarray([1.0]) if m is xp else [1.0]), e),
        ("inv", lambda m, a: m.linalg.inv(m.reshape(a, (0, 0)) if m is xp else a.reshape(0, 0)),
         np.zeros((0,))),
        ("astype", lambda m, a: m.astype(a, m.int32) if m is xp else a.astype(np.int32), e),
    ]


@pytest.mark.parametrize("name, f, a", _cases_0size(), ids=[c[0] for c in _cases_0size()])
def test_zero_size_arrays_work(name, f, a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's mean of nothing
        want = f(np, a)
    got = f(xp, xp.asarray(a))
    check(got, np.asarray(want))


def test_zero_size_setitem_and_empty_reductions():
    x = xp.zeros((0, 3))
    x[:, 1] = 5.0
    check(x, np.zeros((0, 3)))
    x[xp.asarray([], dtype=xp.int64)] = 1.0
    check(x, np.zeros((0, 3)))
    with pytest.raises(ValueError, match=r"max\(\) of an empty axis: the reduction has no "
                                         "identity"):
        np.asarray(xp.max(x, axis=0))
    with pytest.raises(ValueError, match=r"argmax\(\) of an empty sequence"):
        xp.argmax(x, axis=0)
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 0 with size 0"):
        xp.take(x, xp.asarray([0]), axis=0)


@pytest.mark.parametrize("name, f", [
    ("neg", lambda m, a: -a * 2.0), ("exp", lambda m, a: m.exp(a)), ("sum", lambda m, a: m.sum(a)),
    ("prod", lambda m, a: m.prod(a)), ("max", lambda m, a: m.max(a)),
    ("mean", lambda m, a: m.mean(a)),
    ("var", lambda m, a: m.var(a)), ("any", lambda m, a: m.any(a > 1.0)),
    ("argmax", lambda m, a: m.argmax(a)), ("count_nonzero", lambda m, a: m.count_nonzero(a)),
    ("where", lambda m, a: m.where(a > 1.0, a, 0.0)),
    ("reshape", lambda m, a: m.reshape(a, (1, 1))),
    ("expand", lambda m, a: m.expand_dims(a, axis=0)), ("flip", lambda m, a: m.flip(a)),
    ("broadcast", lambda m, a: m.broadcast_to(a, (2, 3))), ("index", lambda m, a: a[()]),
    ("index_none", lambda m, a: a[None, ...]), ("clip", lambda m, a: m.clip(a, 0.0, 1.0)),
    ("astype", lambda m, a: m.astype(a, m.float32) if m is xp else a.astype(np.float32)),
    ("isin", lambda m, a: m.isin(a, m.asarray([2.5]) if m is xp else [2.5])),
    ("stack", lambda m, a: m.stack([a, a])),
    ("matmul_vec", lambda m, a: m.reshape(a, (1,)) @ m.ones(1)),
])
def test_zero_d_arrays_work(name, f):
    a = np.asarray(2.5)
    check(f(xp, xp.asarray(a)), np.asarray(f(np, a)))


def test_zero_d_scalars_setitem_and_errors():
    x = xp.asarray(2.5)
    x[()] = 1.0
    check(x, np.asarray(1.0))
    x[...] = xp.asarray(3.0)
    check(x, np.asarray(3.0))
    assert float(x) == 3.0 and bool(x) and int(xp.asarray(7)) == 7
    with pytest.raises(IndexError, match="too many indices: array is 0-dimensional, but 1"):
        x[0]
    for call, msg in ((lambda: xp.take(x, xp.asarray([0])), "at least one dimension"),
                      (lambda: xp.cumulative_sum(x), "at least one dimension"),
                      (lambda: x @ x, "at least one dimension"),
                      (lambda: len(x), "len"), (lambda: float(xp.ones(2)), "needs a 0-d array")):
        with pytest.raises((ValueError, TypeError), match=msg):
            call()
