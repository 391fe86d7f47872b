import { ApiError } from '../api/client';

/**
 * An API error in plain words, placed next to the form or button that caused it: the message, then
 * each detail as `path: message` (docs/dashboard.md). The message of a 400 is its first detail, which
 * is therefore not listed twice.
 */
export function ErrorAlert({ error }: { readonly error: Error | null | undefined }) {
  if (!error) return null;
  const details = error instanceof ApiError ? error.details.map((d) => `${d.path}: ${d.message}`).filter((line) => line !== error.message) : [];
  return (
    <div role="alert" className="alert">
      <p>{error.message}</p>
      {details.length > 0 && (
        <ul>
          {[...new Set(details)].map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
