import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { App } from '../api/types';
import { FormFooter } from './form-footer';
import { TextField } from './form-fields';

/** Renames an app or changes its slug; only what changed is sent. */
export function AppDetailsForm({ app }: { readonly app: App }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [name, setName] = useState(app.name);
  const [slug, setSlug] = useState(app.slug);

  const save = useMutation({
    mutationFn: () => {
      const body = { ...(name !== app.name ? { name } : {}), ...(slug !== app.slug ? { slug: slug.trim() } : {}) };
      return api.patch<App>(`/v1/apps/${segment(app.id)}`, body);
    },
    onSuccess: async (updated) => {
      queryClient.setQueryData(queryKeys.app(app.id), updated);
      setName(updated.name);
      setSlug(updated.slug);
      await queryClient.invalidateQueries({ queryKey: queryKeys.apps, exact: true });
    },
  });

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <section className="card" aria-labelledby="app-details-title">
      <h3 id="app-details-title">App</h3>
      <form className="stack" onSubmit={submit} noValidate>
        <div className="two-columns">
          <TextField label="App name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
          <TextField
            label="Slug"
            value={slug}
            onChange={(e) => setSlug(e.target.value)}
            spellCheck={false}
            hint="Lower-case letters, digits and hyphens. API paths accept it in place of the app id; the old slug stops working."
          />
        </div>
        <FormFooter error={save.error} pending={save.isPending} submitLabel="Save app" status={save.isSuccess ? 'Saved.' : ''} />
      </form>
    </section>
  );
}
