// Compiles the shared precompiled header once (see torch_pch.h).
