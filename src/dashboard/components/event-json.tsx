import type { ReactNode } from 'react';
import type { StoredEvent } from '../api/types';
import { prettyJson } from './format';

/** An event's `data` and `metadata` as formatted JSON, side by side where there is room. */
export function EventJson({ event, children }: { readonly event: StoredEvent; readonly children?: ReactNode }) {
  return (
    <div className="details-grid">
      <div>
        <h4>Data</h4>
        <pre tabIndex={0}>{prettyJson(event.data)}</pre>
      </div>
      <div>
        <h4>Metadata</h4>
        <pre tabIndex={0}>{prettyJson(event.metadata)}</pre>
      </div>
      {children}
    </div>
  );
}
