// Error types of the director_fast C++ core. The bindings translate each one to a Python
// exception that subclasses both DirectorFastError and the matching built-in.
#pragma once

#include <stdexcept>
#include <string>

namespace director_fast {

// Base of every error the core throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A value is out of range or malformed (Python: ConfigError/ValidationError, both ValueError).
class ValueError : public Error {
 public:
  using Error::Error;
};

// A configuration parameter is invalid; `field()` names it.
class ConfigError : public ValueError {
 public:
  ConfigError(std::string field, const std::string& message)
      : ValueError(field + ": " + message), field_(std::move(field)) {}
  const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

// A coherence score is non-finite or outside [0, 1]; `index()` is the token index.
class ScoreError : public ValueError {
 public:
  ScoreError(long long index, const std::string& message)
      : ValueError(message), index_(index) {}
  long long index() const noexcept { return index_; }

 private:
  long long index_;
};

// An argument has the wrong type or shape (Python: TypeError).
class TypeError : public Error {
 public:
  using Error::Error;
};

// An index or key is out of range / unknown (Python: IndexError / KeyError).
class IndexError : public Error {
 public:
  using Error::Error;
};

class KeyError : public Error {
 public:
  using Error::Error;
};

// A persisted file is corrupt, foreign or of an unknown format version.
class FormatError : public ValueError {
 public:
  using ValueError::ValueError;
};

// An operating-system level I/O failure (Python: OSError).
class IOError : public Error {
 public:
  using Error::Error;
};

}  // namespace director_fast
