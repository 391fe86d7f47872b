import { describe, expect, it } from 'vitest';
import { EVENT_NAME_PATTERN, FIELD_NAME_PATTERN, completeFields, fieldListProblems, validateAgainstSchema, type SchemaField } from './event-schema.js';

describe('name patterns', () => {
  it.each(['order.created', 'a', 'user:signed-up', 'A_b.C-9', 'x'.repeat(200)])('accepts event name %j', (name) => {
    expect(EVENT_NAME_PATTERN.test(name)).toBe(true);
  });
  it.each(['', 'order created', 'a/b', 'é', 'x'.repeat(201), 'a\n'])('refuses event name %j', (name) => {
    expect(EVENT_NAME_PATTERN.test(name)).toBe(false);
  });
  it.each(['amount', '_private', 'total-eur', '2fa', 'A'.repeat(100)])('accepts field name %j', (name) => {
    expect(FIELD_NAME_PATTERN.test(name)).toBe(true);
  });
  it.each(['', 'order.total', '$level', '-x', 'with space', 'A'.repeat(101)])('refuses field name %j', (name) => {
    expect(FIELD_NAME_PATTERN.test(name)).toBe(false);
  });
});

describe('fieldListProblems', () => {
  it('accepts a valid list', () => {
    expect(
      fieldListProblems([
        { name: 'amount', type: 'number', required: true },
        { id: 'f-2', name: 'status', type: 'enum', enumValues: ['paid', 'open'] },
        { name: 'note', type: 'string' },
      ]),
    ).toEqual([]);
  });

  it('requires enumValues for enum fields and refuses them elsewhere', () => {
    expect(
      fieldListProblems([
        { name: 'a', type: 'enum' },
        { name: 'b', type: 'enum', enumValues: [] },
        { name: 'c', type: 'string', enumValues: ['x'] },
        { name: 'd', type: 'enum', enumValues: ['x', 'y', 'x'] },
      ]),
    ).toEqual([
      { path: '0.enumValues', message: 'must list at least one value for type enum' },
      { path: '1.enumValues', message: 'must list at least one value for type enum' },
      { path: '2.enumValues', message: 'only allowed for type enum, not string' },
      { path: '3.enumValues', message: 'duplicate value "x"' },
    ]);
  });

  it('refuses duplicate names and ids within one list, case-sensitively', () => {
    expect(
      fieldListProblems([
        { id: 'x', name: 'amount', type: 'number' },
        { id: 'x', name: 'Amount', type: 'number' },
        { name: 'amount', type: 'string' },
      ]),
    ).toEqual([
      { path: '1.id', message: 'duplicate field id "x"' },
      { path: '2.name', message: 'duplicate field name "amount"' },
    ]);
  });
});

describe('completeFields', () => {
  it('assigns missing ids, defaults required to false and keeps enumValues only on enums', () => {
    let n = 0;
    const fields = completeFields(
      [
        { name: 'a', type: 'string' },
        { id: 'mine', name: 'b', type: 'enum', required: true, enumValues: ['x'] },
      ],
      () => `gen-${++n}`,
    );
    expect(fields).toEqual([
      { id: 'gen-1', name: 'a', type: 'string', required: false },
      { id: 'mine', name: 'b', type: 'enum', required: true, enumValues: ['x'] },
    ]);
  });
});

describe('validateAgainstSchema', () => {
  const fields: SchemaField[] = [
    { id: '1', name: 'amount', type: 'number', required: true },
    { id: '2', name: 'currency', type: 'enum', required: false, enumValues: ['EUR', 'USD'] },
    { id: '3', name: 'note', type: 'string', required: false },
    { id: '4', name: 'paid', type: 'boolean', required: false },
  ];

  it('accepts conforming data and keys the schema does not declare', () => {
    expect(validateAgainstSchema(fields, { amount: 12.5, currency: 'EUR', note: 'x', paid: false, extra: { any: 1 } })).toEqual([]);
    expect(validateAgainstSchema(fields, { amount: 0 })).toEqual([]);
  });

  it('names every problem by field', () => {
    expect(validateAgainstSchema(fields, { currency: 'GBP', note: 3, paid: 'yes' })).toEqual([
      { path: 'amount', message: 'is required' },
      { path: 'currency', message: 'must be one of: EUR, USD' },
      { path: 'note', message: 'must be a string' },
      { path: 'paid', message: 'must be a boolean' },
    ]);
  });

  it('checks types strictly: a numeric string is not a number', () => {
    expect(validateAgainstSchema(fields, { amount: '12' })).toEqual([{ path: 'amount', message: 'must be a number' }]);
    expect(validateAgainstSchema(fields, { amount: Number.NaN })).toEqual([{ path: 'amount', message: 'must be a number' }]);
    expect(validateAgainstSchema(fields, { amount: 1, currency: ['EUR'] })).toEqual([{ path: 'currency', message: 'must be one of: EUR, USD' }]);
  });

  it('treats null as absent', () => {
    expect(validateAgainstSchema(fields, { amount: null, note: null })).toEqual([{ path: 'amount', message: 'is required' }]);
  });

  it('does not read inherited properties as present', () => {
    const stringField: SchemaField[] = [{ id: '1', name: 'constructor', type: 'string', required: true }];
    expect(validateAgainstSchema(stringField, {})).toEqual([{ path: 'constructor', message: 'is required' }]);
  });
});
