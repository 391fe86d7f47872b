import { describe, expect, it } from 'vitest';
import { routeTable } from './route-table.js';

describe('routeTable', () => {
  const table = routeTable([
    { method: 'get', path: '/v1/apps/{appId}/rules/{ruleId}' },
    { method: 'delete', path: '/v1/apps/{appId}/rules/{ruleId}' },
    { method: 'post', path: '/v1/apps/{appId}/rules/preview' },
    { method: 'post', path: '/v1/apps/{appId}/rules' },
  ]);

  it('finds the template of a method and path, one segment per parameter, any case, HEAD as GET', () => {
    expect(table.find('GET', '/v1/apps/a1/rules/r1')?.path).toBe('/v1/apps/{appId}/rules/{ruleId}');
    expect(table.find('HEAD', '/V1/Apps/a1/rules/r1/')?.method).toBe('get');
    expect(table.find('GET', '/v1/apps/a1/rules/r1/extra')).toBeUndefined();
    expect(table.methodsAt('/v1/apps/a1/rules/r1')).toEqual(['DELETE', 'GET', 'HEAD']);
    expect(table.methodsAt('/v1/nothing')).toEqual([]);
  });

  it('lets a concrete path shadow a templated one, so a method it does not serve is a 405', () => {
    expect(table.find('POST', '/v1/apps/a1/rules/preview')?.path).toBe('/v1/apps/{appId}/rules/preview');
    expect(table.find('GET', '/v1/apps/a1/rules/preview')).toBeUndefined();
    expect(table.methodsAt('/v1/apps/a1/rules/preview')).toEqual(['POST']);
  });
});
