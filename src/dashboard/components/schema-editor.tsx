import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { EventSchema } from '../api/types';
import { FieldListEditor, newFieldDraft, toSchemaField, type FieldDraft } from './field-list-editor';
import { FormFooter } from './form-footer';
import { TextField } from './form-fields';

interface SchemaEditorProps {
  readonly appId: string;
  /** Absent for a new schema. */
  readonly schema?: EventSchema;
  readonly onDone: () => void;
}

/** Creates or updates one schema. The event name is fixed once created (the API refuses to change it). */
export function SchemaEditor({ appId, schema, onDone }: SchemaEditorProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [eventName, setEventName] = useState(schema?.eventName ?? '');
  const [description, setDescription] = useState(schema?.description ?? '');
  const [fields, setFields] = useState<FieldDraft[]>(() => (schema ? schema.fields.map(newFieldDraft) : [newFieldDraft()]));
  const [metadataFields, setMetadataFields] = useState<FieldDraft[]>(() => schema?.metadataFields.map(newFieldDraft) ?? []);

  const save = useMutation({
    mutationFn: () => {
      const body = { description, fields: fields.map(toSchemaField), metadataFields: metadataFields.map(toSchemaField) };
      const base = `/v1/apps/${segment(appId)}/schemas`;
      return schema ? api.patch<EventSchema>(`${base}/${segment(schema.id)}`, body) : api.post<EventSchema>(base, { eventName: eventName.trim(), ...body });
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.schemas(appId) });
      onDone();
    },
  });

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    save.mutate();
  };

  const title = schema ? `Edit schema ${schema.eventName}` : 'New schema';
  return (
    <section className="card editor" aria-labelledby="schema-editor-title">
      <h3 id="schema-editor-title">{title}</h3>
      <form className="stack" onSubmit={submit} noValidate>
        <div className="two-columns">
          <TextField
            label="Event name"
            value={eventName}
            onChange={(e) => setEventName(e.target.value)}
            readOnly={schema !== undefined}
            spellCheck={false}
            autoFocus
            hint={schema ? 'An event name cannot be changed; create a schema for the new name instead.' : 'Letters, digits and . _ : - (for example order.created).'}
          />
          <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
        <FieldListEditor legend="Fields" noun="Field" rows={fields} onChange={setFields} />
        <FieldListEditor legend="Metadata fields" noun="Metadata field" rows={metadataFields} onChange={setMetadataFields} />
        <FormFooter error={save.error} pending={save.isPending} submitLabel="Save schema" onCancel={onDone} />
      </form>
    </section>
  );
}
