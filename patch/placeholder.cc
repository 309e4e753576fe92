// Placeholder so the library has a source until the module lands; delete when adding real sources.
