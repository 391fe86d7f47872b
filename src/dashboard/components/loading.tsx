/** The one loading indicator: a polite status, so screen readers announce it without interrupting. */
export function Loading() {
  return (
    <p role="status" className="muted">
      Loading…
    </p>
  );
}
