"""kiln as a JAX plugin: ``JAX_PLATFORMS=kiln python train.py`` runs unchanged JAX
programs on kiln's CPU backend through its PJRT plugin.

JAX finds this module as ``jax_plugins.kiln`` (a namespace package, and the
``jax_plugins`` entry point of the installed package) and calls ``initialize()``,
which registers the plugin under the platform name "kiln" and teaches JAX what it
keeps for its own platforms:

- the lowerings JAX defines only for "cpu" whose LAPACK custom calls kiln runs
  (eigh, svd, eig, schur, hessenberg, tridiagonal, and the LAPACK forms of
  cholesky, lu, qr, triangular and tridiagonal solves);
- buffer donation (JAX drops ``donate_argnums`` on platforms outside its list);
- that host callbacks (``jax.debug.print``, ``pure_callback``, ``io_callback``) are
  unsupported on kiln: tracing one for a kiln device raises NotImplementedError.

Tested with jax and jaxlib 0.10.2 (``TESTED_JAX_VERSIONS``); other versions are
refused unless ``KILN_ANY_JAX=1``, since the lowerings and the donation list are
JAX internals. The plugin library is ``$KILN_PJRT_PLUGIN`` when set, else the
``libkiln_plugin_cpu.so`` installed beside this file.
"""

import os
import pathlib

TESTED_JAX_VERSIONS = ("0.10.2",)
PLATFORM = "kiln"
_LIBRARY = "libkiln_plugin_cpu.so"

# JAX's primitives whose "cpu" lowering calls jaxlib's LAPACK kernels, which kiln runs
# (its kernels/lapack table). geqp3 and ormqr are not among them: kiln has no kernel.
_LAPACK_PRIMITIVES = (
    "cholesky", "eig", "eigh", "geqrf", "hessenberg", "householder_product", "lu",
    "schur", "svd", "triangular_solve", "tridiagonal", "tridiagonal_solve",
)


def library_path() -> str:
    """The kiln PJRT plugin this package registers."""
    path = os.environ.get("KILN_PJRT_PLUGIN")
    if path:
        if not os.path.isfile(path):
            raise RuntimeError(f"kiln: KILN_PJRT_PLUGIN={path} is not a file")
        return path
    bundled = pathlib.Path(__file__).with_name(_LIBRARY)
    if bundled.is_file():
        return str(bundled)
    raise RuntimeError(
        "kiln: no plugin library: set KILN_PJRT_PLUGIN to kiln's "
        f"build/lib/{_LIBRARY}, or install this package with `make jax-plugin`")


def check_jax_version(version: str) -> None:
    """Refuses JAX versions this package was not tested with (see the module doc)."""
    if version not in TESTED_JAX_VERSIONS and os.environ.get("KILN_ANY_JAX") != "1":
        raise RuntimeError(
            f"kiln: jax {version} is untested (tested: {', '.join(TESTED_JAX_VERSIONS)}); "
            "set KILN_ANY_JAX=1 to try it anyway")


def _register_lowerings() -> None:
    from jax._src.interpreters import mlir
    for primitive, entry in list(mlir._platform_specific_lowerings["cpu"].items()):
        if primitive.name in _LAPACK_PRIMITIVES:
            mlir.register_lowering(primitive, entry.rule, platform=PLATFORM, inline=entry.inline)


# JAX's host callbacks: jax.debug.print, jax.debug.callback, pure_callback and
# io_callback call back into Python from a running program, which JAX lowers for its
# own platforms only (XLA's FFI callbacks inside jaxlib); kiln has no route for them.
_CALLBACK_PRIMITIVES = (
    ("jax._src.debugging", "debug_callback_p"), ("jax._src.debugging", "debug_print_p"),
    ("jax._src.callback", "pure_callback_p"), ("jax._src.callback", "io_callback_p"),
)


def _refuse_host_callbacks() -> None:
    import importlib
    from jax._src.interpreters import mlir

    for module, name in _CALLBACK_PRIMITIVES:
        primitive = getattr(importlib.import_module(module), name, None)
        if primitive is None:
            continue

        def refuse(ctx, *args, _name=primitive.name, **params):
            raise NotImplementedError(
                f"kiln: unsupported: host callbacks ({_name}: jax.debug.print, jax.debug.callback, "
                "pure_callback, io_callback) do not run on kiln's devices; jit that function "
                "for a cpu device instead")

        mlir.register_lowering(primitive, refuse, platform=PLATFORM)


def _allow_donation() -> None:
    from jax._src.interpreters import mlir
    if PLATFORM not in mlir._platforms_with_donation:
        mlir._platforms_with_donation.append(PLATFORM)


def initialize() -> None:
    import jax
    from jax._src import xla_bridge

    check_jax_version(jax.__version__)
    # The plugin names its platform "kiln" for JAX (its default is its backend's, "cpu").
    xla_bridge.register_plugin(PLATFORM, priority=400, library_path=library_path(),
                               options={"platform_name": PLATFORM})
    _register_lowerings()
    _refuse_host_callbacks()
    _allow_donation()
