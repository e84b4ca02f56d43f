// Diagnostics: the per-call trace (MYBLAS_VERBOSE), warnings, and one-time warnings.
#pragma once
#include <string>

#include "core/config.h"

namespace myblas {

inline bool verbose() { return config().verbose > 0; }
// Writes one line (a newline is added) to MYBLAS_LOG or stderr, prefixed "myblas: ".
void log_line(const std::string& line);
// printf-style formatting into a std::string.
std::string strformat(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// A warning that is printed once per process for each distinct key, whatever the verbosity.
void warn_once(const std::string& key, const std::string& message);

}  // namespace myblas
