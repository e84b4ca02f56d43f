#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_blas (tests/fuzz/corpus/): one small file per case below,
named after it. Byte layout: see the header comment of fuzz_blas.cpp. The seeds give the
fuzzer a start in every routine, layout, transpose, scalar and error branch; the fuzzer's
mutations take it from there. Rerun after changing the decoding, then commit the files."""
import os
import random

ROUTINES = ["sgemm_", "cblas_sgemm", "sgemv_", "cblas_sgemv", "hgemm_", "hgemm", "cblas_hgemm", "shgemm_",
            "gemm_f16f16f32_", "cblas_gemm_f16f16f32"]
# The routines of the generic problem, in the order of kGeneric in fuzz_blas.cpp (their routine
# byte is len(ROUTINES) + the index here).
GENERIC = ["dgemm_", "zgemm_", "cblas_zgemm", "zgemv_", "cblas_zgemv", "cblas_dgemv", "dsymm_", "cblas_zhemm",
           "dsyrk_", "cblas_zherk", "zher2k_", "cblas_dsyr2k", "cblas_zsyrk", "dtrmm_", "cblas_ztrmm", "dtrsm_",
           "cblas_ztrsm", "ztrsm_"]
SIDE = {"L": 0, "l": 1, "R": 2, "r": 3, "X": 4}
UPLO = {"U": 0, "u": 1, "L": 2, "l": 3, "X": 4}
GTRANS = {"N": 0, "n": 1, "T": 2, "t": 3, "C": 4, "c": 5, "X": 6}
DIAG = {"N": 0, "n": 1, "U": 2, "u": 3, "X": 4}
GSCALAR = {0: 0, 1: 1, -1: 2, 0.5: 3, 2: 4, -0.75: 5, "-0": 6}
LAYOUT = {"col": 0, "row": 1, "bad0": 4, "bad103": 5}
# Index into kTransChars (Fortran) and, modulo 10, kCblasTrans: 0 N/NoTrans, 1 n/Trans,
# 2 T/ConjTrans, 3 t/NoTrans, 4 C/Trans, 5 c/ConjTrans, 6 X/0, 7 R/114, 8 NUL/110.
TRANS = {"N": 0, "n": 1, "T": 2, "t": 3, "C": 4, "c": 5, "X": 6, "R": 7, "NUL": 8}
SCALAR = {0: 0, 1: 1, -1: 2, 0.5: 3, 2: 4, -0.75: 5, "-0": 6, "nan": 7}


def gemm(name, r, lay="col", ta="N", tb="N", m=5, n=7, k=3, dlda=0, dldb=1, dldc=2, alpha=1,
         beta=0.5, nan=0, pos=(0, 0, 0)):
    head = [ROUTINES.index(r), LAYOUT[lay], TRANS[ta], TRANS[tb], m + 2, n + 2, k + 2,
            dlda + 2, dldb + 2, dldc + 2, SCALAR[alpha], SCALAR[beta], nan, *pos]
    return name, head


def gemv(name, r, lay="col", t="N", m=6, n=4, dlda=1, incx=1, incy=1, alpha=1, beta=0.5, nan=0,
         pos=(0, 0, 0)):
    head = [ROUTINES.index(r), LAYOUT[lay], TRANS[t], 0, m + 2, n + 2, dlda + 2, incx + 4,
            incy + 4, SCALAR[alpha], SCALAR[beta], nan, *pos]
    return name, head


def generic(name, r, lay="col", side="L", uplo="U", t="N", diag="N", m=5, n=7, k=3, dlda=1, dldb=0, dldc=2,
            alpha=(1, 0.5), beta=(-0.75, 0)):
    """dlda.. are deltas over the smallest legal leading dimension (gemv: dldb, dldc are incx, incy)."""
    diag_index = GTRANS[diag] if GENERIC[GENERIC.index(r)].endswith("gemm_") or r.endswith("gemm") else DIAG[diag]
    gemv = r.endswith("gemv") or r.endswith("gemv_")
    head = [len(ROUTINES) + GENERIC.index(r), LAYOUT[lay], SIDE[side], UPLO[uplo], GTRANS[t], diag_index,
            m + 2, n + 2, k + 2, dlda + 2, (dldb + 4) if gemv else dldb + 2, (dldc + 4) if gemv else dldc + 2,
            GSCALAR[alpha[0]], GSCALAR[alpha[1]], GSCALAR[beta[0]], GSCALAR[beta[1]]]
    return name, head


CASES = [
    gemm("sgemm_plain", "sgemm_"),
    gemm("sgemm_tt_lower", "sgemm_", ta="t", tb="c", m=9, n=2, k=11),
    gemm("sgemm_beta0_nan_c", "sgemm_", beta=0, nan=8),
    gemm("sgemm_alpha0", "sgemm_", alpha=0, beta=-0.75),
    gemm("sgemm_alpha0_beta1", "sgemm_", alpha=0, beta=1),
    gemm("sgemm_k0", "sgemm_", k=0, beta=2),
    gemm("sgemm_m0_lda0", "sgemm_", m=0, dlda=-1),
    gemm("sgemm_nan_a", "sgemm_", nan=1, pos=(7, 0, 0)),
    gemm("sgemm_alpha_nan", "sgemm_", alpha="nan"),
    gemm("sgemm_beta_nan", "sgemm_", beta="nan"),
    gemm("sgemm_beta_minus0", "sgemm_", beta="-0", nan=12, pos=(0, 0, 3)),
    gemm("sgemm_bad_transa", "sgemm_", ta="X"),
    gemm("sgemm_bad_transb_nul", "sgemm_", tb="NUL"),
    gemm("sgemm_neg_k", "sgemm_", k=-1),
    gemm("sgemm_lda_small", "sgemm_", dlda=-1),
    gemm("sgemm_ldc_small", "sgemm_", dldc=-2),
    gemm("cblas_sgemm_col", "cblas_sgemm", ta="T"),
    gemm("cblas_sgemm_row", "cblas_sgemm", lay="row", ta="n", tb="T", m=3, n=8, k=5),
    gemm("cblas_sgemm_row_ldb_small", "cblas_sgemm", lay="row", dldb=-1),
    gemm("cblas_sgemm_row_neg_m", "cblas_sgemm", lay="row", m=-2),
    gemm("cblas_sgemm_bad_layout", "cblas_sgemm", lay="bad103"),
    gemm("cblas_sgemm_bad_trans", "cblas_sgemm", ta="X"),
    gemm("hgemm_plain", "hgemm_", m=12, n=12, k=12),
    gemm("hgemm_alias_tn", "hgemm", ta="T", beta=-1),
    gemm("hgemm_beta0_nan_c", "hgemm_", beta=0, nan=8),
    gemm("hgemm_bad_transb", "hgemm_", tb="R"),
    gemm("cblas_hgemm_row", "cblas_hgemm", lay="row", ta="C", tb="N", alpha=-0.75),
    gemm("cblas_hgemm_bad_layout", "cblas_hgemm", lay="bad0"),
    gemm("shgemm_plain", "shgemm_", m=12, n=12, k=12),
    gemm("shgemm_beta0_nan_c", "shgemm_", beta=0, nan=8),
    gemm("shgemm_bad_lda", "shgemm_", ta="t", dlda=-1),
    gemm("gemm_f16f16f32_alpha0", "gemm_f16f16f32_", tb="T", alpha=0, beta=-1),
    gemm("gemm_f16f16f32_bad_transa", "gemm_f16f16f32_", ta="X"),
    gemm("cblas_gemm_f16f16f32_row", "cblas_gemm_f16f16f32", lay="row", ta="T", alpha=0.5),
    gemm("cblas_gemm_f16f16f32_bad_layout", "cblas_gemm_f16f16f32", lay="bad103"),
    gemv("sgemv_n", "sgemv_"),
    gemv("sgemv_t_strided", "sgemv_", t="T", incx=3, incy=-2),
    gemv("sgemv_neg_inc", "sgemv_", t="c", incx=-4, incy=-1, beta=1),
    gemv("sgemv_beta0_nan_y", "sgemv_", beta=0, nan=8),
    gemv("sgemv_beta_nan", "sgemv_", beta="nan"),
    gemv("sgemv_alpha0", "sgemv_", alpha=0, beta=2),
    gemv("sgemv_n0", "sgemv_", n=0, beta=0),
    gemv("sgemv_incx0", "sgemv_", incx=0),
    gemv("sgemv_incy0", "sgemv_", incy=0),
    gemv("sgemv_lda_small", "sgemv_", dlda=-2),
    gemv("sgemv_bad_trans", "sgemv_", t="X"),
    gemv("cblas_sgemv_col", "cblas_sgemv", t="n", incy=2),
    gemv("cblas_sgemv_row", "cblas_sgemv", lay="row", t="N", m=3, n=9, incx=-2),
    gemv("cblas_sgemv_row_trans", "cblas_sgemv", lay="row", t="T", m=7, n=2),
    gemv("cblas_sgemv_row_lda_small", "cblas_sgemv", lay="row", m=3, n=9, dlda=-1),
    gemv("cblas_sgemv_bad_layout", "cblas_sgemv", lay="bad0"),
    gemv("cblas_sgemv_bad_trans", "cblas_sgemv", t="R"),
]
GENERIC_CASES = [
    generic("dgemm_nt", "dgemm_", t="N", diag="T", m=9, n=4, k=11),
    generic("zgemm_cc", "zgemm_", t="c", diag="C", m=3, n=8, k=5),
    generic("cblas_zgemm_row", "cblas_zgemm", lay="row", t="C", diag="N", m=6, n=5, k=7),
    generic("zgemm_beta0", "zgemm_", beta=(0, 0)),
    generic("zgemm_alpha0", "zgemm_", alpha=(0, 0), beta=(2, -1)),
    generic("zgemm_bad_ldc", "zgemm_", dldc=-2),
    generic("zgemv_c_strided", "zgemv_", t="C", m=7, n=5, dldb=-2, dldc=3),
    generic("cblas_zgemv_row_conjtrans", "cblas_zgemv", lay="row", t="C", m=6, n=9, dldb=1, dldc=-1),
    generic("cblas_dgemv_row_incx0", "cblas_dgemv", lay="row", dldb=0),
    generic("dsymm_rl", "dsymm_", side="r", uplo="L", m=8, n=5),
    generic("cblas_zhemm_row", "cblas_zhemm", lay="row", side="R", uplo="U", m=4, n=9),
    generic("cblas_zhemm_bad_side", "cblas_zhemm", side="X"),
    generic("dsyrk_lt", "dsyrk_", uplo="l", t="T", n=9, k=4),
    generic("cblas_zherk_row", "cblas_zherk", lay="row", uplo="L", t="C", n=7, k=5, alpha=(0.5, 0), beta=(-1, 0)),
    generic("cblas_zherk_trans_illegal", "cblas_zherk", t="T"),
    generic("zher2k_un", "zher2k_", uplo="U", t="N", n=8, k=3, beta=(0, 0)),
    generic("cblas_dsyr2k_row", "cblas_dsyr2k", lay="row", uplo="U", t="T", n=6, k=9),
    generic("cblas_zsyrk_conj_illegal", "cblas_zsyrk", t="C"),
    generic("dtrmm_rlcu", "dtrmm_", side="R", uplo="L", t="C", diag="U", m=7, n=6),
    generic("cblas_ztrmm_row_alpha0", "cblas_ztrmm", lay="row", side="L", uplo="U", t="T", diag="N", alpha=(0, 0)),
    generic("dtrsm_lun", "dtrsm_", side="L", uplo="U", t="N", diag="N", m=9, n=5),
    generic("cblas_ztrsm_row", "cblas_ztrsm", lay="row", side="R", uplo="L", t="C", diag="U", m=5, n=8),
    generic("ztrsm_bad_diag", "ztrsm_", diag="X"),
    generic("ztrsm_neg_n", "ztrsm_", n=-1),
    generic("cblas_ztrsm_bad_layout", "cblas_ztrsm", lay="bad103"),
]
CASES += GENERIC_CASES


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20240611)  # fixed: the same files every time
    for name, head in CASES:
        data = bytes(head) + bytes(rng.randrange(256) for _ in range(400))
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"{len(CASES)} seeds in {out}")


if __name__ == "__main__":
    main()
