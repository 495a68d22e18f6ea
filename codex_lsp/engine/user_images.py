"""A user's images in the message the model reads, as Codex words them.

Every image is scaled to the model's budget (`prompt_images`). An attached file is framed by
its name and path (`<image name=[Image #2] path="shot.png">` ... `</image>`) so the model can
refer to it; the number counts every image of the message, pasted or attached. A file that
cannot be read, or is no image, is named in a line of text instead.
"""

from __future__ import annotations

from pathlib import Path

from codex_lsp.engine.prompt_images import ImageDetail, ImageError, prepare_data_url, prepare_image
from codex_lsp.protocol.core.response_items import ContentItem, InputImageContent
from codex_lsp.store.bounded_read import IMAGE_MAX_BYTES, read_bytes

OMITTED = "image content omitted because it could not be processed"


def _image(url: str, detail: ImageDetail | None) -> InputImageContent:
    item: InputImageContent = {"type": "input_image", "image_url": url}
    if detail is not None:
        item["detail"] = detail
    return item


def pasted_image(url: str, detail: ImageDetail | None, budget: ImageDetail) -> ContentItem:
    """An `image` input: a data URL, prepared here; any other URL goes as is, at `high`
    detail (only an image prepared here is known to fit the model's `original` budget)."""
    if url[:5].lower() != "data:":
        return _image(url, detail and "high")
    try:
        return _image(prepare_data_url(url, budget), detail)
    except ImageError:
        return {"type": "input_text", "text": OMITTED}


def attached_image(
    number: int, given: str, cwd: Path, detail: ImageDetail | None, budget: ImageDetail
) -> list[ContentItem]:
    """A `localImage` input: the file at `given` (relative to `cwd`) as the model reads it."""
    path = cwd / given
    try:
        data = read_bytes(path, IMAGE_MAX_BYTES)
    except OSError as err:
        reason = f"{err.strerror} (os error {err.errno})" if err.errno else str(err)
        return [
            {
                "type": "input_text",
                "text": f"Codex could not read the local image at `{given}`: {reason}",
            }
        ]
    body: ContentItem
    try:
        body = _image(prepare_image(data, budget).data_url(), detail)
    except ImageError:
        body = {"type": "input_text", "text": OMITTED}
    return [
        {"type": "input_text", "text": f'<image name=[Image #{number}] path="{given}">'},
        body,
        {"type": "input_text", "text": "</image>"},
    ]
