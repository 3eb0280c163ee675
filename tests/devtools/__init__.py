"""Developer tools that ship with the project: the provider simulator, the PDF
writer behind the sample study and the test corpus, and data builders."""
