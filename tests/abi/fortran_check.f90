! SGEMM and SGEMV called from Fortran the way legacy code does: implicit interfaces,
! upper- and lowercase option characters, leading dimensions larger than needed. Results
! are compared with DOUBLE PRECISION loops, and the padding around every matrix must come
! back untouched. Then illegal arguments must reach *this program's* XERBLA (below) with
! the reference INFO, proving libmyblas calls the handler through the dynamic symbol.
! Stops with a non-zero code on any failure.
module xerbla_state
  implicit none
  integer :: ncalls = 0, lastinfo = 0
  character(len=6) :: lastname = ' '
end module xerbla_state

subroutine xerbla(srname, info)
  use xerbla_state
  implicit none
  character(len=*), intent(in) :: srname
  integer, intent(in) :: info
  ncalls = ncalls + 1
  lastinfo = info
  lastname = srname(1:min(len(srname), 6))
end subroutine xerbla

program fortran_check
  use xerbla_state
  implicit none
  external sgemm, sgemv
  integer, parameter :: m = 5, n = 4, k = 3, lda = 8, ldb = 7, ldc = 9
  character(len=1), parameter :: ops(6) = (/ 'N', 'n', 'T', 't', 'C', 'c' /)
  real :: a(lda, 8), b(ldb, 8), c(ldc, n), c0(ldc, n)
  real :: x(2*8), y(8), y0(8)
  real, parameter :: alpha = 0.75, beta = -0.5
  double precision :: s, opa, opb, err, worst
  integer :: i, j, p, ia, ib, nfail, lenx, leny
  logical :: ta, tb

  nfail = 0
  worst = 0d0
  do j = 1, 8
    do i = 1, lda
      a(i, j) = real(mod(7*i + 3*j, 11) - 5) / 4.0
    end do
    do i = 1, ldb
      b(i, j) = real(mod(5*i + 2*j, 13) - 6) / 8.0
    end do
  end do
  do j = 1, n
    do i = 1, ldc
      c0(i, j) = real(mod(3*i + j, 7) - 3) / 2.0
    end do
  end do

  ! ---- SGEMM: every spelling of every transpose option ----
  do ia = 1, 6
    do ib = 1, 6
      ta = ops(ia) /= 'N' .and. ops(ia) /= 'n'
      tb = ops(ib) /= 'N' .and. ops(ib) /= 'n'
      c = c0
      call sgemm(ops(ia), ops(ib), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      do j = 1, n
        do i = 1, ldc
          if (i <= m) then
            s = 0d0
            do p = 1, k
              if (ta) then
                opa = dble(a(p, i))
              else
                opa = dble(a(i, p))
              end if
              if (tb) then
                opb = dble(b(j, p))
              else
                opb = dble(b(p, j))
              end if
              s = s + opa * opb
            end do
            s = dble(alpha) * s + dble(beta) * dble(c0(i, j))
          else
            s = dble(c0(i, j))   ! padding rows of C must not be written
          end if
          err = abs(dble(c(i, j)) - s)
          worst = max(worst, err)
          if (err > 1d-5) then
            nfail = nfail + 1
            if (nfail <= 10) print '(a,2a2,a,2i3,2(a,es14.6))', ' FAIL sgemm ', ops(ia), ops(ib), &
                ' element', i, j, ' got', c(i, j), ' expected', s
          end if
        end do
      end do
    end do
  end do
  print '(a,es10.2)', ' sgemm: 36 transpose spellings checked, worst error', worst

  ! ---- SGEMV: upper/lowercase, incx = 2, lda > m ----
  do i = 1, size(x)
    x(i) = real(i) / 3.0
  end do
  do i = 1, 8
    y0(i) = real(2 - i)
  end do
  do ia = 1, 4
    ta = ops(ia) /= 'N' .and. ops(ia) /= 'n'
    if (ta) then
      lenx = m
      leny = n
    else
      lenx = n
      leny = m
    end if
    y = y0
    call sgemv(ops(ia), m, n, alpha, a, lda, x, 2, beta, y, 1)
    do i = 1, 8
      if (i <= leny) then
        s = 0d0
        do p = 1, lenx
          if (ta) then
            s = s + dble(a(p, i)) * dble(x(1 + 2*(p-1)))
          else
            s = s + dble(a(i, p)) * dble(x(1 + 2*(p-1)))
          end if
        end do
        s = dble(alpha) * s + dble(beta) * dble(y0(i))
      else
        s = dble(y0(i))   ! beyond the vector: untouched
      end if
      err = abs(dble(y(i)) - s)
      if (err > 1d-5) then
        nfail = nfail + 1
        print '(a,a2,a,i3,2(a,es14.6))', ' FAIL sgemv ', ops(ia), ' element', i, ' got', y(i), &
            ' expected', s
      end if
    end do
  end do
  print '(a)', ' sgemv: N n T t checked'

  ! ---- illegal arguments reach our XERBLA with the reference INFO, C untouched ----
  call expect_error('SGEMM ', 1, 1)
  call expect_error('SGEMM ', 3, 2)
  call expect_error('SGEMM ', 8, 3)
  call expect_error('SGEMM ', 13, 4)
  call expect_error('SGEMV ', 1, 5)
  call expect_error('SGEMV ', 8, 6)

  if (nfail /= 0) then
    print '(i0,a)', nfail, ' failures'
    stop 1
  end if
  print '(a)', ' fortran_check: all results correct, XERBLA overrides work'

contains

  subroutine expect_error(name, want, which)
    character(len=6), intent(in) :: name
    integer, intent(in) :: want, which
    integer :: before
    before = ncalls
    c = c0
    y = y0
    select case (which)
    case (1)
      call sgemm('X', 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
    case (2)
      call sgemm('N', 'N', -1, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
    case (3)
      call sgemm('n', 'n', m, n, k, alpha, a, m - 1, b, ldb, beta, c, ldc)
    case (4)
      call sgemm('N', 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, m - 1)
    case (5)
      call sgemv('q', m, n, alpha, a, lda, x, 1, beta, y, 1)
    case (6)
      call sgemv('T', m, n, alpha, a, lda, x, 0, beta, y, 1)
    end select
    if (ncalls /= before + 1 .or. lastinfo /= want .or. lastname /= name) then
      nfail = nfail + 1
      print '(a,a,a,i0,a,i0,a,a,a,i0)', ' FAIL: expected XERBLA(', name, ', ', want, &
          ') once; got ', ncalls - before, ' call(s), last ', lastname, ' INFO ', lastinfo
    else if (any(c /= c0) .or. any(y /= y0)) then
      nfail = nfail + 1
      print '(a,a,i0)', ' FAIL: output changed by an illegal call to ', name, want
    else
      print '(a,a,a,i0,a)', ' XERBLA(', name, ', ', want, ') reached the program''s handler'
    end if
  end subroutine expect_error

end program fortran_check
