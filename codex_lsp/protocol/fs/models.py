"""Files on the v2 wire: `fs/*` requests on absolute host paths and the `fs/changed`
notification of `fs/watch`. File contents travel as base64."""

from __future__ import annotations

from codex_lsp.protocol.common import Opt, V2Model
from codex_lsp.protocol.methods import MethodTable


class FsReadFileParams(V2Model):
    path: str


class FsReadFileResponse(V2Model):
    data_base64: str


class FsWriteFileParams(V2Model):
    path: str
    data_base64: str


class FsWriteFileResponse(V2Model):
    pass


class FsCreateDirectoryParams(V2Model):
    path: str
    recursive: Opt[bool] = None


class FsCreateDirectoryResponse(V2Model):
    pass


class FsGetMetadataParams(V2Model):
    path: str


class FsGetMetadataResponse(V2Model):
    is_directory: bool
    is_file: bool
    is_symlink: bool
    created_at_ms: int
    modified_at_ms: int


class FsReadDirectoryParams(V2Model):
    path: str


class FsReadDirectoryEntry(V2Model):
    file_name: str
    is_directory: bool
    is_file: bool


class FsReadDirectoryResponse(V2Model):
    entries: list[FsReadDirectoryEntry]


class FsRemoveParams(V2Model):
    path: str
    recursive: Opt[bool] = None
    force: Opt[bool] = None


class FsRemoveResponse(V2Model):
    pass


class FsCopyParams(V2Model):
    source_path: str
    destination_path: str
    recursive: Opt[bool] = None


class FsCopyResponse(V2Model):
    pass


class FsWatchParams(V2Model):
    watch_id: str
    path: str


class FsWatchResponse(V2Model):
    path: str


class FsUnwatchParams(V2Model):
    watch_id: str


class FsUnwatchResponse(V2Model):
    pass


class FsChangedNotification(V2Model):
    watch_id: str
    changed_paths: list[str]


METHODS = MethodTable()
FS_READ_FILE = METHODS.request("fs/readFile", FsReadFileParams, FsReadFileResponse)
FS_WRITE_FILE = METHODS.request("fs/writeFile", FsWriteFileParams, FsWriteFileResponse)
FS_CREATE_DIRECTORY = METHODS.request(
    "fs/createDirectory", FsCreateDirectoryParams, FsCreateDirectoryResponse
)
FS_GET_METADATA = METHODS.request("fs/getMetadata", FsGetMetadataParams, FsGetMetadataResponse)
FS_READ_DIRECTORY = METHODS.request(
    "fs/readDirectory", FsReadDirectoryParams, FsReadDirectoryResponse
)
FS_REMOVE = METHODS.request("fs/remove", FsRemoveParams, FsRemoveResponse)
FS_COPY = METHODS.request("fs/copy", FsCopyParams, FsCopyResponse)
FS_WATCH = METHODS.request("fs/watch", FsWatchParams, FsWatchResponse)
FS_UNWATCH = METHODS.request("fs/unwatch", FsUnwatchParams, FsUnwatchResponse)
METHODS.notification("fs/changed", FsChangedNotification)
