"""Developer tools, not shipped: the provider simulator, the PDF writer behind the
sample study and the test corpus, planted-bias statistics data, and data builders.

This package lives in tests/ so no wheel or frozen app carries it; product code
must not import it (import-linter's "Product code never imports test support"
contract and tests/test_devtools_boundary.py). It is imported as the
top-level package `devtools`: pytest puts tests/ on sys.path itself; benchmarks
and packaging/smoke_test.py add it (ROOT / "tests"); by hand, run
`PYTHONPATH=tests python -m devtools.<tool>` from the project root.
"""
