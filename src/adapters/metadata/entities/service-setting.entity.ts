import { EntitySchema } from '@mikro-orm/core';

/**
 * A value the service generates once and every process must share, such as the key that signs
 * event-list cursors. Kept in the metadata database so operators have nothing to configure and all
 * API processes agree. Never a credential a client presents.
 */
export interface ServiceSetting {
  name: string;
  value: string;
  createdAt: Date;
}

export const ServiceSettingEntity = new EntitySchema<ServiceSetting>({
  name: 'ServiceSetting',
  tableName: 'service_setting',
  properties: {
    name: { type: 'string', length: 100, primary: true },
    value: { type: 'text' },
    createdAt: { type: 'datetime' },
  },
});
