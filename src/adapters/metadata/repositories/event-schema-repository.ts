import type { EventSchemaChanges, EventSchemaRecord, EventSchemaRepository, NewEventSchema, Page } from '../../../ports/metadata.js';
import { EventSchemaEntity } from '../entities/event-schema.entity.js';
import { toEventSchemaRecord } from '../records.js';
import { createRow, DETACHED, inCreationOrder, updateById, type EntityManagerSource } from '../unit-of-work.js';

export class OrmEventSchemaRepository implements EventSchemaRepository {
  constructor(private readonly em: EntityManagerSource) {}

  async create(input: NewEventSchema): Promise<EventSchemaRecord> {
    const data = {
      app: input.appId,
      eventName: input.eventName,
      description: input.description ?? '',
      fields: [...input.fields],
      metadataFields: [...(input.metadataFields ?? [])],
    };
    return createRow(this.em(), EventSchemaEntity, data, toEventSchemaRecord);
  }

  async findById(appId: string, id: string): Promise<EventSchemaRecord | null> {
    const schema = await this.em().findOne(EventSchemaEntity, { id, app: appId }, DETACHED);
    return schema && toEventSchemaRecord(schema);
  }

  async findByName(appId: string, eventName: string): Promise<EventSchemaRecord | null> {
    const schema = await this.em().findOne(EventSchemaEntity, { app: appId, eventName }, DETACHED);
    return schema && toEventSchemaRecord(schema);
  }

  async list(appId: string, page: Page): Promise<EventSchemaRecord[]> {
    return (await this.em().find(EventSchemaEntity, { app: appId }, inCreationOrder(page))).map(toEventSchemaRecord);
  }

  async listAll(appId: string): Promise<EventSchemaRecord[]> {
    return (await this.em().find(EventSchemaEntity, { app: appId }, DETACHED)).map(toEventSchemaRecord);
  }

  async update(id: string, changes: EventSchemaChanges): Promise<EventSchemaRecord | null> {
    return updateById(this.em(), EventSchemaEntity, id, changes, toEventSchemaRecord);
  }

  async delete(appId: string, id: string): Promise<boolean> {
    return (await this.em().nativeDelete(EventSchemaEntity, { id, app: appId })) > 0;
  }
}
