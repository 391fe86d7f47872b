import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { App, AppWithApiKey } from '../api/types';
import { ConfirmDialog } from './confirm-dialog';
import { ShownOnceDialog } from './shown-once-dialog';

/** The key's hint, and rotation: confirm first (it is irreversible), then the new key once. */
export function ApiKeySection({ app }: { readonly app: App }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [newKey, setNewKey] = useState<string | null>(null);

  const rotate = useMutation({
    mutationFn: () => api.post<AppWithApiKey>(`/v1/apps/${segment(app.id)}/keys/rotate`),
    onSuccess: async (rotated) => {
      setConfirming(false);
      setNewKey(rotated.apiKey);
      queryClient.setQueryData(queryKeys.app(app.id), rotated.app);
      await queryClient.invalidateQueries({ queryKey: queryKeys.apps, exact: true });
    },
  });

  return (
    <section className="card" aria-labelledby="api-key-title">
      <h3 id="api-key-title">API key</h3>
      <p>
        Current key: <code>{app.apiKeyHint}</code>
      </p>
      <p className="muted small">Only the start of the key is kept visible. Lost it? Regenerate it: the current key stops working at that moment.</p>
      <button
        type="button"
        className="button"
        onClick={() => {
          rotate.reset();
          setConfirming(true);
        }}
      >
        Regenerate API key
      </button>
      {confirming && (
        <ConfirmDialog
          title="Regenerate the API key?"
          confirmLabel="Regenerate"
          onConfirm={() => rotate.mutate()}
          onCancel={() => setConfirming(false)}
          pending={rotate.isPending}
          error={rotate.error}
        >
          <p>
            The current key (<code>{app.apiKeyHint}</code>) stops working at once: every service still sending with it gets 401 until it has the new key.
            This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
      {newKey !== null && (
        <ShownOnceDialog name="API key" value={newKey} hint="Your application sends it in the x-api-key header of POST /v1/ingest." onDone={() => setNewKey(null)} />
      )}
    </section>
  );
}
