#pragma once
// Force-included (-include) into every source of the TOML fuzz targets, which are compiled
// without NDEBUG. toml++'s internal checks (TOML_ASSERT, and TOML_ASSERT_ASSUME, which becomes a
// compiler assumption under NDEBUG and so undefined behaviour when it fails) report the finding
// "toml-assert" (fuzz_common.hpp) instead of calling assert().
extern "C" void bnn_fuzz_toml_assert(const char* expression, const char* file, int line);
#define TOML_ASSERT(expr) ((expr) ? static_cast<void>(0) : bnn_fuzz_toml_assert(#expr, __FILE__, __LINE__))
