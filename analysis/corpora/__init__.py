"""Corpora: text in, `Sample` records and frames out; nothing here tokenizes.

`builtin` reads the corpora shipped in `datasets/`, `files` the user's files, folders and tables,
`parallel` folders of translations (FLORES), `system` corpora already on the machine (stdlib,
pydoc, gettext), `generated` the numbers and whitespace variants, and `sample` defines the record.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .builtin import (
        BUILTIN_NAMES as BUILTIN_NAMES,
        CATEGORIES as CATEGORIES,
        GENERATED_CATEGORIES as GENERATED_CATEGORIES,
        builtin_dir as builtin_dir,
        file_sha256 as file_sha256,
        get_sample as get_sample,
        iter_builtin as iter_builtin,
        load_builtin as load_builtin,
        load_parallel as load_parallel,
        read_manifest as read_manifest,
        sample_text as sample_text,
        verify_builtin as verify_builtin,
    )
    from .files import (
        CODE_EXTENSIONS as CODE_EXTENSIONS,
        iter_samples as iter_samples,
        iter_text_chunks as iter_text_chunks,
        load_corpus as load_corpus,
        load_samples as load_samples,
    )
    from .sample import (
        detect_script as detect_script,
        Labeled as Labeled,
        LoadReport as LoadReport,
        Sample as Sample,
        samples_to_frame as samples_to_frame,
    )
    from .system import (
        CorpusUnavailableError as CorpusUnavailableError,
        gettext_available as gettext_available,
        iter_gettext as iter_gettext,
        iter_pydoc as iter_pydoc,
        iter_stdlib as iter_stdlib,
        iter_system as iter_system,
        load_gettext as load_gettext,
        pydoc_available as pydoc_available,
        stdlib_available as stdlib_available,
        system_corpora as system_corpora,
    )

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('BUILTIN_NAMES', 'CATEGORIES', 'GENERATED_CATEGORIES', 'builtin_dir', 'file_sha256', 'get_sample', 'iter_builtin', 'load_builtin', 'load_parallel', 'read_manifest', 'sample_text', 'verify_builtin'), '.builtin'),
    **dict.fromkeys(('CODE_EXTENSIONS', 'iter_samples', 'iter_text_chunks', 'load_corpus', 'load_samples'), '.files'),
    **dict.fromkeys(('detect_script', 'Labeled', 'LoadReport', 'Sample', 'samples_to_frame'), '.sample'),
    **dict.fromkeys(('CorpusUnavailableError', 'gettext_available', 'iter_gettext', 'iter_pydoc', 'iter_stdlib', 'iter_system', 'load_gettext', 'pydoc_available', 'stdlib_available', 'system_corpora'), '.system'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
