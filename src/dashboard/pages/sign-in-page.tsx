import { useState, type FormEvent } from 'react';
import { ApiError, createApiClient } from '../api/client';
import { useSession } from '../api/session';
import { ErrorAlert } from '../components/error-alert';
import { TextField } from '../components/form-fields';

/**
 * Sign in by pasting a client secret; it is checked with one read before it is kept. Once it is,
 * the signed-in routes take over this path and go back to the page asked for (app.tsx).
 */
export function SignInPage() {
  const { signIn, notice } = useSession();
  const [secret, setSecret] = useState('');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<Error | null>(null);

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    const value = secret.trim();
    setPending(true);
    setError(null);
    try {
      // Its own client: a 401 here is a wrong secret, not the end of a session.
      await createApiClient(value, () => undefined).get('/v1/apps', { limit: 1 });
      signIn(value);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setError(new Error('That client secret was not accepted.'));
      else if (err instanceof ApiError && err.status === 403) setError(new Error('That client secret cannot read (it lacks the read scope), and the dashboard needs to read.'));
      else setError(err instanceof Error ? err : new Error(String(err)));
      setPending(false);
    }
  };

  return (
    <main id="main" className="page narrow sign-in">
      <h1 tabIndex={-1}>Sign in</h1>
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      <form className="card stack" onSubmit={(e) => void submit(e)}>
        <TextField
          label="Client secret"
          type="password"
          name="client-secret"
          autoComplete="off"
          spellCheck={false}
          required
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          hint={
            <>
              A <code>svc_cs_…</code> value: the <code>BOOTSTRAP_CLIENT_SECRET</code> the service started with, or one printed by{' '}
              <code>npm run cli -- create-account</code>. It is kept in this tab only, until you sign out or close it.
            </>
          }
        />
        <ErrorAlert error={error} />
        <div>
          <button type="submit" className="button primary" disabled={pending} aria-busy={pending}>
            Sign in
          </button>
        </div>
      </form>
    </main>
  );
}
