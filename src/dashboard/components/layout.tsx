import { useEffect, useRef } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useSession } from '../api/session';

/** The first two path segments: moving between them is a new page, moving between tabs is not. */
function pageOf(pathname: string): string {
  return pathname.split('/').slice(0, 3).join('/');
}

/**
 * Header and main region of every signed-in page. On a move to another page the focus goes to the
 * new page's heading, so screen-reader users hear where they are (a tab change keeps the focus on
 * the tab link instead).
 */
export function Layout() {
  const { signOut } = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  const lastPage = useRef(pageOf(pathname));

  useEffect(() => {
    const page = pageOf(pathname);
    if (page === lastPage.current) return;
    lastPage.current = page;
    // The heading, or the main region while the page is still loading and has none.
    (main.current?.querySelector<HTMLElement>('h1') ?? main.current)?.focus();
  }, [pathname]);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <div className="site-header-inner">
          <Link to="/" className="brand">
            Event alerting
          </Link>
          <nav aria-label="Main" className="main-nav">
            <NavLink to="/" end>
              Apps
            </NavLink>
            <NavLink to="/client-secrets">Client secrets</NavLink>
          </nav>
          <button
            type="button"
            className="button subtle"
            onClick={() => {
              signOut();
              void navigate('/sign-in', { replace: true });
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" ref={main} className="page" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
