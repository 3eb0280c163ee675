"""Model providers: one module per vendor wire format, keys behind one small interface.

Plain Python on httpx; never imports Qt. A provider turns a `ChatRequest` into a
`ChatResponse` or raises a `ProviderError` whose message a user can act on.
"""
