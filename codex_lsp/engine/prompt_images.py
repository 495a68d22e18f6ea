"""Images as the model receives them: scaled down to the model's budget, re-encoded only when
they must be, as Codex prepares every image it sends (a user's attachment, a pasted data URL,
the file `view_image` reads).

The budget counts 32-pixel patches: an image for a `high` detail model fits in 2048 pixels a
side and 2,500 patches, one for an `original` detail model in 6000 pixels and 10,000 patches.
An image within its budget whose format the Responses API takes as is (PNG, JPEG, WebP) is sent
byte for byte; a GIF (or any other decodable format) becomes a PNG. A larger image is scaled
(bilinear, aspect kept) and written back in its own format, a GIF as PNG. The EXIF orientation
is applied and the colour profile kept. Results are remembered by content, so a file read
again on every turn is decoded once.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import math
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

from PIL import Image, ImageOps

ImageDetail = Literal["high", "original"]

PATCH_SIZE = 32
_LIMITS: dict[ImageDetail, tuple[int, int]] = {
    # detail: (longest side, patches)
    "high": (2048, 2_500),
    "original": (6000, 10_000),
}
# Formats sent unchanged when no scaling is needed.
_KEPT = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
_CACHE_SIZE = 32
# Far above any budget, below what would exhaust memory when decoded (Pillow's own guard).
_MAX_PIXELS = 178_956_970


class ImageError(Exception):
    """The bytes are not an image this server can decode."""


@dataclass(frozen=True, slots=True)
class PromptImage:
    data: bytes
    mime: str
    width: int
    height: int

    def data_url(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"


def patch_count(width: int, height: int) -> int:
    return -(-width // PATCH_SIZE) * -(-height // PATCH_SIZE)


def _fits(width: int, height: int, side: int, patches: int) -> bool:
    return width <= side and height <= side and patch_count(width, height) <= patches


def output_size(width: int, height: int, detail: ImageDetail) -> tuple[int, int]:
    """The size an image of `width` x `height` is sent at. The float steps follow Codex's
    exactly, so both round to the same pixel."""
    side, patches = _LIMITS[detail]
    width, height = max(width, 1), max(height, 1)
    if _fits(width, height, side, patches):
        return width, height
    scale = min(side / max(width, height), 1.0)
    width = max(math.floor(width * scale + 0.5), 1)
    height = max(math.floor(height * scale + 0.5), 1)
    if _fits(width, height, side, patches):
        return width, height
    scale = math.sqrt(PATCH_SIZE * PATCH_SIZE * patches / width / height)
    wide = width * scale / PATCH_SIZE
    high = height * scale / PATCH_SIZE
    # Round the patch grid down so the integer size stays within the budget.
    scale *= min(math.floor(wide) / wide, math.floor(high) / high)
    return max(math.floor(width * scale), 1), max(math.floor(height * scale), 1)


_cache: OrderedDict[tuple[bytes, ImageDetail], PromptImage] = OrderedDict()
_cache_lock = threading.Lock()


def prepare_image(data: bytes, detail: ImageDetail) -> PromptImage:
    """`data` (an encoded image) as the model is sent it; `ImageError` if it is no image."""
    key = (hashlib.sha1(data, usedforsecurity=False).digest(), detail)
    with _cache_lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    prepared = _prepare(data, detail)
    with _cache_lock:
        _cache[key] = prepared
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return prepared


def prepare_data_url(url: str, detail: ImageDetail) -> str:
    """A `data:` URL's image prepared as `prepare_image` does; any other URL unchanged."""
    if url[:5].lower() != "data:":
        return url
    meta, sep, payload = url[5:].partition(",")
    if not sep or "base64" not in (part.lower() for part in meta.split(";")):
        raise ImageError("only base64 data URLs are supported")
    try:
        data = base64.b64decode(payload, validate=True)
    except binascii.Error as err:
        raise ImageError(f"invalid base64 payload: {err}") from None
    return prepare_image(data, detail).data_url()


def _open(data: bytes) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            if image.width * image.height > _MAX_PIXELS:
                raise ImageError(f"image is too large ({image.width}x{image.height} pixels)")
            image.load()
    except ImageError:
        raise
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombWarning) as err:
        raise ImageError(f"unable to decode image: {err}") from None
    except Image.DecompressionBombError as err:
        raise ImageError(str(err)) from None
    return image


def _prepare(data: bytes, detail: ImageDetail) -> PromptImage:
    image = _open(data)
    source_format = image.format or ""
    icc = image.info.get("icc_profile")
    oriented = ImageOps.exif_transpose(image)
    width, height = oriented.size
    target = output_size(width, height, detail)
    if target == (width, height) and source_format in _KEPT:
        return PromptImage(data, _KEPT[source_format], width, height)
    if target != (width, height):
        oriented = oriented.resize(target, Image.Resampling.BILINEAR)
    out_format = source_format if source_format in _KEPT else "PNG"
    return PromptImage(_encode(oriented, out_format, icc), _KEPT[out_format], *oriented.size)


def _encode(image: Image.Image, out_format: str, icc: bytes | None) -> bytes:
    buffer = io.BytesIO()
    extra: dict[str, object] = {"icc_profile": icc} if icc else {}
    if out_format == "JPEG":
        image.convert("RGB").save(buffer, "JPEG", quality=85, **extra)
    elif out_format == "WEBP":
        image.convert("RGBA").save(buffer, "WEBP", lossless=True, **extra)
    else:
        image.convert("RGBA").save(buffer, "PNG", **extra)
    return buffer.getvalue()
