"""The fast resize (uint16 row taps, float32 column block) equals the integer formula of the
module doc, computed here densely in int64 from the area weights."""
import numpy as np
import pytest

from nc2600.hls_models import preprocessor


def dense_integer_resize(grey: np.ndarray) -> np.ndarray:
    height, width = grey.shape[-2:]
    wy, wx = preprocessor.area_weights(height), preprocessor.area_weights(width)
    acc = wy @ grey.astype(np.int64) @ wx.T
    return (acc + height * width // 2) // (height * width)


@pytest.mark.parametrize("height", [210, 214, 220, 230, 250])
def test_resize_equals_integer_division(height):
    rng = np.random.default_rng(height)
    grey = rng.integers(0, 256, (3, height, 160), dtype=np.uint8)
    grey[1] = 255                                                   # largest sums
    grey[2] = rng.integers(250, 256, (height, 160), dtype=np.uint8)  # quotients near integers
    got = preprocessor.resize(grey)
    assert got.dtype == np.uint8 and np.array_equal(got, dense_integer_resize(grey))
    acc = preprocessor.resize_accumulators(grey)
    wy, wx = preprocessor.area_weights(height), preprocessor.area_weights(160)
    assert np.array_equal(acc, wy @ grey.astype(np.int64) @ wx.T)


def test_every_rounding_boundary_of_one_output_pixel():
    # a flat image of level v makes every area sum exactly v * H * W: the quotient is an
    # integer, the case where a float division could fall just below it
    for v in range(256):
        grey = np.full((210, 160), v, np.uint8)
        assert np.all(preprocessor.resize(grey) == v)


def test_column_block_repeats_area_weights():
    block = preprocessor.column_blocks(160)
    assert block.shape == (40, 21)
    w = preprocessor.area_weights(160)
    for g in range(4):
        assert np.array_equal(w[21 * g:21 * g + 21, 40 * g:40 * g + 40], block.T)
