import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { createApiClient, type ApiClient } from './client';

/**
 * The client secret lives in sessionStorage only: it survives a reload of the tab, dies with the
 * tab, is never shared with other tabs and never appears in a URL (docs/decisions/0014-dashboard.md).
 */
const STORAGE_KEY = 'eas.dashboard.clientSecret';

interface Session {
  readonly secret: string | null;
  /** Why the last session ended, for the sign-in page to say. */
  readonly notice: string | null;
  readonly signIn: (secret: string) => void;
  readonly signOut: (notice?: string) => void;
}

const SessionContext = createContext<Session | null>(null);

function readStored(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage disabled by the browser: the session then lasts as long as the page.
    return null;
  }
}

function writeStored(secret: string | null): void {
  try {
    if (secret === null) sessionStorage.removeItem(STORAGE_KEY);
    else sessionStorage.setItem(STORAGE_KEY, secret);
  } catch {
    // See readStored.
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<string | null>(readStored);
  const [notice, setNotice] = useState<string | null>(null);

  const signIn = useCallback((value: string) => {
    writeStored(value);
    setNotice(null);
    setSecret(value);
  }, []);

  const signOut = useCallback(
    (reason?: string) => {
      writeStored(null);
      setSecret(null);
      setNotice(reason ?? null);
      // Nothing read with the old secret may show to whoever signs in next.
      queryClient.clear();
    },
    [queryClient],
  );

  const value = useMemo(() => ({ secret, notice, signIn, signOut }), [secret, notice, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The API client of the signed-in session; a 401 ends the session. */
export function useApi(): ApiClient {
  const { secret, signOut } = useSession();
  return useMemo(
    () => createApiClient(secret ?? '', () => signOut('The client secret is no longer accepted (it may have been revoked). Sign in again.')),
    [secret, signOut],
  );
}
