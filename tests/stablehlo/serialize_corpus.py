"""Serializes every program under the given folders (../shared's conformance suites and
models) as a StableHLO portable artifact at kiln's declared version, with jaxlib's own
serializer, into OUT: NAME.mlirbc beside NAME.mlir (the text it came from), for
bytecode_corpus_test.cc and `kiln test`. Files of several `// -----` parts, and programs
jaxlib's serializer refuses (other dialects: check, arith, ...), are left out and
counted.

    python serialize_corpus.py OUT VERSION FOLDER...
"""

import pathlib
import shutil
import sys

import jaxlib.mlir.dialects.stablehlo as stablehlo


def main(out, version, folders):
    out = pathlib.Path(out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    written = refused = 0
    for folder in map(pathlib.Path, folders):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.mlir")):
            text = path.read_text()
            if "// -----" in text:
                continue
            try:
                artifact = stablehlo.serialize_portable_artifact_str(text, version)
            except Exception:  # the serializer's complaint is about the program, not us
                refused += 1
                continue
            stem = out / f"{folder.name}__{str(path.relative_to(folder)).replace('/', '__')[:-5]}"
            stem.with_suffix(".mlir").write_text(text)
            stem.with_suffix(".mlirbc").write_bytes(artifact)
            written += 1
    print(f"{written} programs serialized at StableHLO {version}, {refused} refused by jaxlib's serializer")
    return 0 if written else 77


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
