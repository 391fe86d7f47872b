import { ApiKeySection } from '../components/api-key-section';
import { AppDetailsForm } from '../components/app-details-form';
import { DangerZone } from '../components/danger-zone';
import { DefaultMetadataEditor } from '../components/default-metadata-editor';
import { useAppContext } from './app-context';

export function SettingsTab() {
  const { app } = useAppContext();
  return (
    <section aria-labelledby="settings-title" className="stack">
      <h2 id="settings-title">Settings</h2>
      <AppDetailsForm key={app.id} app={app} />
      <ApiKeySection app={app} />
      <DefaultMetadataEditor appId={app.id} />
      <DangerZone app={app} />
    </section>
  );
}
