// Element-type traits for the code written once per routine family and instantiated for
// float, double, std::complex<float> and std::complex<double> (layout-compatible with C's
// float _Complex / double _Complex and Fortran's COMPLEX / COMPLEX*16).
#pragma once
#include <complex>

#include "core/problem.h"

namespace myblas {

template <class T>
struct Elem;
template <>
struct Elem<float> {
  using Real = float;
  static constexpr Dtype type = Dtype::s;
};
template <>
struct Elem<double> {
  using Real = double;
  static constexpr Dtype type = Dtype::d;
};
template <>
struct Elem<std::complex<float>> {
  using Real = float;
  static constexpr Dtype type = Dtype::c;
};
template <>
struct Elem<std::complex<double>> {
  using Real = double;
  static constexpr Dtype type = Dtype::z;
};

template <class T>
constexpr bool kComplex = Elem<T>::type == Dtype::c || Elem<T>::type == Dtype::z;

template <class T>
inline T conj_if(T x) {
  if constexpr (kComplex<T>) return std::conj(x);
  else return x;
}
template <class T>
inline typename Elem<T>::Real real_part(T x) {
  if constexpr (kComplex<T>) return x.real();
  else return x;
}

template <class T>
inline T from_scalar(const Scalar& s) {
  if constexpr (kComplex<T>) return T(typename Elem<T>::Real(s.re), typename Elem<T>::Real(s.im));
  else return T(s.re);
}
template <class T>
inline Scalar to_scalar(T x) {
  if constexpr (kComplex<T>) return Scalar{double(x.real()), double(x.imag())};
  else return Scalar{double(x), 0.0};
}

}  // namespace myblas
