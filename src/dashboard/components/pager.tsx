interface PagerProps {
  readonly pageNumber: number;
  readonly nextCursor: string | null | undefined;
  readonly onNext: (cursor: string) => void;
  readonly onPrevious: () => void;
  readonly onFirst: () => void;
}

/** `Next page` while the API returns a cursor; `First page` and `Previous page` once past the first. */
export function Pager({ pageNumber, nextCursor, onNext, onPrevious, onFirst }: PagerProps) {
  if (pageNumber === 1 && !nextCursor) return null;
  return (
    <nav className="pager" aria-label="Pages">
      {pageNumber > 1 && (
        <>
          <button type="button" className="button small" onClick={onFirst}>
            First page
          </button>
          <button type="button" className="button small" onClick={onPrevious}>
            Previous page
          </button>
        </>
      )}
      <span className="muted small">Page {pageNumber}</span>
      {nextCursor && (
        <button type="button" className="button small" onClick={() => onNext(nextCursor)}>
          Next page
        </button>
      )}
    </nav>
  );
}
