/**
 * The admin REST API's OpenAPI 3 document, served at GET /api/am/admin/v1/openapi.json (no authentication)
 * and described with examples in docs/admin-api.md.
 */
const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const jsonContent = (schema: unknown, example?: unknown): Record<string, unknown> => ({ 'application/json': { schema, ...(example !== undefined ? { example } : {}) } });
const list = (item: string): unknown => ({ type: 'object', properties: { count: { type: 'integer' }, list: { type: 'array', items: ref(item) } } });
const errors = {
  '400': { $ref: '#/components/responses/BadRequest' },
  '401': { $ref: '#/components/responses/Unauthorized' },
  '404': { $ref: '#/components/responses/NotFound' },
  '409': { $ref: '#/components/responses/Conflict' },
};
const ok = (schema: unknown, description = 'OK'): Record<string, unknown> => ({ description, content: jsonContent(schema) });
const pathParam = (name: string, description: string): Record<string, unknown> => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
const apiId = pathParam('apiId', 'name:version of the API, URL-encoded (PizzaShackAPI:1.0.0)');
const appName = pathParam('name', 'application name');
const level = { name: 'level', in: 'path', required: true, schema: { type: 'string', enum: ['subscription', 'application', 'advanced', 'custom'] } };

const quota = {
  requests: { type: 'integer', minimum: 1 },
  bandwidth: { type: 'integer', minimum: 1, description: 'bytes per window, instead of requests' },
  unit_time: { type: 'integer', minimum: 1, default: 1 },
  time_unit: { type: 'string', enum: ['sec', 'min', 'hour', 'day'], default: 'min' },
};

export const OPENAPI = {
  openapi: '3.0.3',
  info: {
    title: 'Sluice admin API',
    version: 'v1',
    description: 'Administration of APIs, applications, subscriptions, throttling policies, block conditions and gateways. '
      + 'Served on the servlet HTTPS port (9443 + offset) of the control plane (server_role default, api-publisher or api-devportal). '
      + 'HTTP Basic as a user with the admin role (the [super_admin] account by default). Writes persist in the apim_db store and reach '
      + 'every gateway io thread of every node within a second. Errors: { code, message, description }.',
  },
  servers: [{ url: '/api/am/admin/v1' }],
  security: [{ basic: [] }],
  paths: {
    '/openapi.json': { get: { summary: 'This document', security: [], responses: { '200': { description: 'OpenAPI 3 document' } } } },
    '/apis': {
      get: { summary: 'APIs served: the admin API\'s and the declarative files\'', tags: ['APIs'], parameters: [{ name: 'lifecycle_state', in: 'query', schema: { type: 'string' } }], responses: { '200': ok(list('Api')), ...errors } },
      post: {
        summary: 'Create an API (lifecycle_state CREATED unless given)', tags: ['APIs'],
        requestBody: { required: true, content: jsonContent(ref('Api'), {
          name: 'PizzaShackAPI', context: '/pizzashack', version: '1.0.0', lifecycle_state: 'PUBLISHED',
          endpoints: { production: 'http://127.0.0.1:9080/pizzashack/v1' },
          resources: [{ verb: 'GET', uri_template: '/menu', auth_type: 'Application & Application User', throttling_policy: 'Unlimited' }],
        }) },
        responses: { '201': ok(ref('Api'), 'Created'), ...errors },
      },
    },
    '/apis/{apiId}': {
      parameters: [apiId],
      get: { summary: 'One API', tags: ['APIs'], responses: { '200': ok(ref('Api')), ...errors } },
      put: { summary: 'Replace an API created through this API (name and version stay)', tags: ['APIs'], requestBody: { required: true, content: jsonContent(ref('Api')) }, responses: { '200': ok(ref('Api')), ...errors } },
      delete: { summary: 'Delete an API without subscriptions', tags: ['APIs'], responses: { '204': { description: 'Deleted' }, ...errors } },
    },
    '/apis/{apiId}/lifecycle': {
      parameters: [apiId],
      post: {
        summary: 'Change the lifecycle state', tags: ['APIs'],
        description: 'publish (CREATED, PROTOTYPED, BLOCKED -> PUBLISHED), block (PUBLISHED -> BLOCKED: calls get 700700), deprecate (PUBLISHED, BLOCKED -> DEPRECATED), retire (DEPRECATED -> RETIRED: calls get 404), demote (-> CREATED), prototype (CREATED -> PROTOTYPED). The action may also be given as ?action=.',
        requestBody: { content: jsonContent({ type: 'object', properties: { action: { type: 'string', enum: ['publish', 'block', 'deprecate', 'retire', 'demote', 'prototype'] } } }, { action: 'block' }) },
        responses: { '200': ok({ type: 'object', properties: { id: { type: 'string' }, action: { type: 'string' }, previous_state: { type: 'string' }, lifecycle_state: { type: 'string' } } }), ...errors },
      },
    },
    '/applications': {
      get: { summary: 'Applications with their keys (no secrets) and subscriptions', tags: ['Applications'], responses: { '200': ok(list('Application')), ...errors } },
      post: {
        summary: 'Create an application with OAuth keys; the answer carries each client_secret, once', tags: ['Applications'],
        requestBody: { required: true, content: jsonContent(ref('ApplicationCreate'), { name: 'MyApp', throttling_policy: 'Unlimited', keys: [{ key_type: 'PRODUCTION', grant_types: ['client_credentials'] }] }) },
        responses: { '201': ok(ref('ApplicationCreated'), 'Created'), ...errors },
      },
    },
    '/applications/{name}': {
      parameters: [appName],
      get: { summary: 'One application', tags: ['Applications'], responses: { '200': ok(ref('Application')), ...errors } },
      put: { summary: 'Change owner, throttling_policy or token_type', tags: ['Applications'], requestBody: { required: true, content: jsonContent({ type: 'object', properties: { owner: { type: 'string' }, throttling_policy: { type: 'string' }, token_type: { type: 'string', enum: ['JWT', 'OPAQUE'] } } }) }, responses: { '200': ok(ref('Application')), ...errors } },
      delete: { summary: 'Delete an application; its tokens are revoked on every gateway', tags: ['Applications'], responses: { '204': { description: 'Deleted' }, ...errors } },
    },
    '/applications/{name}/subscriptions': {
      parameters: [appName],
      get: { summary: 'The application\'s subscriptions', tags: ['Subscriptions'], responses: { '200': ok(list('Subscription')), ...errors } },
      post: { summary: 'Subscribe to an API with a tier', tags: ['Subscriptions'], requestBody: { required: true, content: jsonContent(ref('SubscriptionCreate'), { api: 'PizzaShackAPI:1.0.0', throttling_policy: 'Gold' }) }, responses: { '201': ok(ref('Subscription'), 'Created'), ...errors } },
    },
    '/applications/{name}/subscriptions/{apiId}': {
      parameters: [appName, apiId],
      get: { summary: 'One subscription', tags: ['Subscriptions'], responses: { '200': ok(ref('Subscription')), ...errors } },
      put: { summary: 'Change the tier', tags: ['Subscriptions'], requestBody: { required: true, content: jsonContent({ type: 'object', properties: { throttling_policy: { type: 'string' } } }) }, responses: { '200': ok(ref('Subscription')), ...errors } },
      delete: { summary: 'Unsubscribe', tags: ['Subscriptions'], responses: { '204': { description: 'Deleted' }, ...errors } },
    },
    '/applications/{name}/subscriptions/{apiId}/block': {
      parameters: [appName, apiId],
      post: { summary: 'Block the subscription (calls get 900907)', tags: ['Subscriptions'], requestBody: { content: jsonContent({ type: 'object', properties: { state: { type: 'string', enum: ['BLOCKED', 'PROD_ONLY_BLOCKED'], default: 'BLOCKED' } } }) }, responses: { '200': ok(ref('Subscription')), ...errors } },
    },
    '/applications/{name}/subscriptions/{apiId}/unblock': {
      parameters: [appName, apiId],
      post: { summary: 'Unblock the subscription', tags: ['Subscriptions'], responses: { '200': ok(ref('Subscription')), ...errors } },
    },
    '/subscriptions': {
      get: { summary: 'Every subscription', tags: ['Subscriptions'], parameters: [{ name: 'application', in: 'query', schema: { type: 'string' } }, { name: 'api', in: 'query', schema: { type: 'string' } }], responses: { '200': ok(list('Subscription')), ...errors } },
      post: { summary: 'Subscribe (application named in the body)', tags: ['Subscriptions'], requestBody: { required: true, content: jsonContent({ allOf: [ref('SubscriptionCreate'), { type: 'object', required: ['application'], properties: { application: { type: 'string' } } }] }) }, responses: { '201': ok(ref('Subscription'), 'Created'), ...errors } },
    },
    '/throttling/policies': { get: { summary: 'Every throttling policy', tags: ['Throttling'], responses: { '200': ok(list('Policy')), ...errors } } },
    '/throttling/policies/{level}': {
      parameters: [level],
      get: { summary: 'Policies of one level', tags: ['Throttling'], responses: { '200': ok(list('Policy')), ...errors } },
      post: { summary: 'Create a policy', tags: ['Throttling'], requestBody: { required: true, content: jsonContent(ref('Policy'), { name: 'Gold', requests: 5000, unit_time: 1, time_unit: 'min', burst: { requests: 100, time_unit: 'sec' } }) }, responses: { '201': ok(ref('Policy'), 'Created'), ...errors } },
    },
    '/throttling/policies/{level}/{name}': {
      parameters: [level, pathParam('name', 'policy name')],
      get: { summary: 'One policy', tags: ['Throttling'], responses: { '200': ok(ref('Policy')), ...errors } },
      put: { summary: 'Replace a policy', tags: ['Throttling'], requestBody: { required: true, content: jsonContent(ref('Policy')) }, responses: { '200': ok(ref('Policy')), ...errors } },
      delete: { summary: 'Delete a policy', tags: ['Throttling'], responses: { '204': { description: 'Deleted' }, ...errors } },
    },
    '/throttling/block-conditions': {
      get: { summary: 'Block conditions (also at /throttling/deny-policies)', tags: ['Throttling'], responses: { '200': ok(list('BlockCondition')), ...errors } },
      post: { summary: 'Create a block condition (calls matching it get 900805)', tags: ['Throttling'], requestBody: { required: true, content: jsonContent(ref('BlockCondition'), { type: 'IP', value: '192.0.2.7', enabled: true }) }, responses: { '201': ok(ref('BlockCondition'), 'Created'), ...errors } },
    },
    '/throttling/block-conditions/{id}': {
      parameters: [pathParam('id', 'block condition id (UUID)')],
      get: { summary: 'One block condition', tags: ['Throttling'], responses: { '200': ok(ref('BlockCondition')), ...errors } },
      put: { summary: 'Replace a block condition', tags: ['Throttling'], requestBody: { required: true, content: jsonContent(ref('BlockCondition')) }, responses: { '200': ok(ref('BlockCondition')), ...errors } },
      patch: { summary: 'Switch a block condition on or off', tags: ['Throttling'], requestBody: { required: true, content: jsonContent({ type: 'object', properties: { enabled: { type: 'boolean' } } }, { enabled: false }) }, responses: { '200': ok(ref('BlockCondition')), ...errors } },
      delete: { summary: 'Delete a block condition', tags: ['Throttling'], responses: { '204': { description: 'Deleted' }, ...errors } },
    },
    '/environments': { get: { summary: 'Gateway environments ([[apim.gateway.environment]]) with their number of registered gateways', tags: ['Gateways'], responses: { '200': ok({ type: 'object' }), ...errors } } },
    '/environments/{name}/gateways': { parameters: [pathParam('name', 'environment name (a gateway label)')], get: { summary: 'Gateways registered under an environment', tags: ['Gateways'], responses: { '200': ok(list('Gateway')), ...errors } } },
    '/gateways': { get: { summary: 'Every registered gateway', tags: ['Gateways'], responses: { '200': ok(list('Gateway')), ...errors } } },
    '/gateways/{id}': { parameters: [pathParam('id', 'gateway id')], get: { summary: 'One gateway', tags: ['Gateways'], responses: { '200': ok(ref('Gateway')), ...errors } } },
    '/users': {
      get: { summary: 'Users of the database user store (never a password)', tags: ['Users'], responses: { '200': ok(list('User')), ...errors } },
      post: { summary: 'Create a user (the password is stored as a scrypt hash)', tags: ['Users'], requestBody: { required: true, content: jsonContent(ref('UserCreate'), { username: 'alice', password: 'a-long-passphrase', roles: ['menu-manager'], claims: { email: 'alice@example.com' } }) }, responses: { '201': ok(ref('User'), 'Created'), ...errors } },
    },
    '/users/{name}': {
      parameters: [pathParam('name', 'user name')],
      get: { summary: 'One user', tags: ['Users'], responses: { '200': ok(ref('User')), ...errors } },
      put: { summary: 'Change the password, roles or claims of a user created here', tags: ['Users'], requestBody: { required: true, content: jsonContent({ type: 'object', properties: { password: { type: 'string' }, roles: { type: 'array', items: { type: 'string' } }, claims: { type: 'object' } } }) }, responses: { '200': ok(ref('User')), ...errors } },
      delete: { summary: 'Delete a user created here', tags: ['Users'], responses: { '204': { description: 'Deleted' }, ...errors } },
    },
    '/roles': {
      get: { summary: 'Roles and the scopes bound to them', tags: ['Users'], responses: { '200': ok(list('Role')), ...errors } },
      post: { summary: 'Create a role; a scope it lists reaches user tokens only through roles that list it', tags: ['Users'], requestBody: { required: true, content: jsonContent(ref('Role'), { name: 'menu-manager', scopes: ['menu:write'] }) }, responses: { '201': ok(ref('Role'), 'Created'), ...errors } },
    },
    '/roles/{name}': {
      parameters: [pathParam('name', 'role name')],
      get: { summary: 'One role', tags: ['Users'], responses: { '200': ok(ref('Role')), ...errors } },
      put: { summary: 'Replace the scopes of a role created here', tags: ['Users'], requestBody: { required: true, content: jsonContent({ type: 'object', properties: { scopes: { type: 'array', items: { type: 'string' } } } }) }, responses: { '200': ok(ref('Role')), ...errors } },
      delete: { summary: 'Delete a role created here', tags: ['Users'], responses: { '204': { description: 'Deleted' }, ...errors } },
    },
  },
  components: {
    securitySchemes: { basic: { type: 'http', scheme: 'basic' } },
    responses: {
      BadRequest: { description: 'The body or a parameter is not valid', content: jsonContent(ref('Error')) },
      Unauthorized: { description: 'No or wrong administrator credentials', content: jsonContent(ref('Error')) },
      NotFound: { description: 'No such resource', content: jsonContent(ref('Error')) },
      Conflict: { description: 'Already exists, defined by a file, or a forbidden transition', content: jsonContent(ref('Error')) },
    },
    schemas: {
      Error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, description: { type: 'string' } } },
      Resource: {
        type: 'object', required: ['uri_template'],
        properties: {
          verb: { type: 'string', enum: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'], default: 'GET' },
          uri_template: { type: 'string', example: '/menu/{id}' },
          auth_type: { type: 'string', enum: ['None', 'Application', 'Application User', 'Application & Application User'], default: 'Application & Application User' },
          throttling_policy: { type: 'string', default: 'Unlimited' },
          scopes: { type: 'array', items: { type: 'string' } },
        },
      },
      Api: {
        type: 'object', required: ['name', 'context', 'version', 'resources'],
        description: 'The fields of an API definition file (docs/declarative-files.md), checked with the same rules.',
        properties: {
          id: { type: 'string', readOnly: true, example: 'PizzaShackAPI:1.0.0' },
          name: { type: 'string' }, context: { type: 'string', example: '/pizzashack' }, version: { type: 'string', example: '1.0.0' },
          type: { type: 'string', enum: ['HTTP', 'GRAPHQL', 'WS'], default: 'HTTP' },
          lifecycle_state: { type: 'string', enum: ['CREATED', 'PUBLISHED', 'BLOCKED', 'DEPRECATED', 'RETIRED', 'PROTOTYPED'] },
          throttling_policy: { type: 'string', default: 'Unlimited' },
          endpoints: { type: 'object', properties: { production: { type: 'string', format: 'uri' }, sandbox: { type: 'string', format: 'uri' } } },
          resources: { type: 'array', minItems: 1, items: ref('Resource') },
          in_sequence: { type: 'string' }, out_sequence: { type: 'string' }, fault_sequence: { type: 'string' },
          cors: { type: 'object', properties: { enable: { type: 'boolean' }, allow_origins: { type: 'array', items: { type: 'string' } }, allow_methods: { type: 'array', items: { type: 'string' } }, allow_headers: { type: 'array', items: { type: 'string' } }, allow_credentials: { type: 'boolean' } } },
          backend_max_tps: { type: 'number' },
          max_buffered_request_body_size: { type: 'integer', minimum: 1024, description: 'bytes; default [passthru_http] max_buffered_request_body_size' },
          max_buffered_response_body_size: { type: 'integer', minimum: 1024, description: 'bytes; default [passthru_http] max_buffered_response_body_size' },
          source: { type: 'string', readOnly: true, enum: ['store', 'file'] },
          file: { type: 'string', readOnly: true },
        },
      },
      Key: { type: 'object', properties: { key_type: { type: 'string', enum: ['PRODUCTION', 'SANDBOX'] }, client_id: { type: 'string', readOnly: true }, grant_types: { type: 'array', items: { type: 'string' } }, scopes: { type: 'array', items: { type: 'string' } }, callback_url: { type: 'string' } } },
      Application: {
        type: 'object',
        properties: {
          name: { type: 'string' }, owner: { type: 'string' }, throttling_policy: { type: 'string' }, token_type: { type: 'string', enum: ['JWT', 'OPAQUE'] },
          keys: { type: 'array', items: ref('Key') }, subscriptions: { type: 'array', items: ref('Subscription') },
          source: { type: 'string', description: 'admin-api, registration (client registration endpoint) or file' },
        },
      },
      ApplicationCreate: {
        type: 'object', required: ['name'],
        properties: {
          name: { type: 'string' }, owner: { type: 'string', description: 'default: the caller' }, throttling_policy: { type: 'string', default: 'Unlimited' },
          token_type: { type: 'string', enum: ['JWT', 'OPAQUE'], default: 'JWT' },
          keys: { type: 'array', items: ref('Key'), description: 'default: one PRODUCTION key with client_credentials, password and refresh_token' },
          subscriptions: { type: 'array', items: ref('SubscriptionCreate') },
        },
      },
      ApplicationCreated: {
        allOf: [ref('Application'), { type: 'object', properties: { keys: { type: 'array', items: { allOf: [ref('Key'), { type: 'object', properties: { client_secret: { type: 'string', description: 'shown once; stored hashed' } } }] } } } }],
      },
      SubscriptionCreate: { type: 'object', required: ['api'], properties: { api: { type: 'string', example: 'PizzaShackAPI:1.0.0' }, throttling_policy: { type: 'string', default: 'Unlimited', description: 'the tier (a subscription policy)' }, state: { type: 'string', default: 'UNBLOCKED' } } },
      Subscription: { type: 'object', properties: { application: { type: 'string' }, api: { type: 'string' }, throttling_policy: { type: 'string' }, state: { type: 'string', enum: ['UNBLOCKED', 'BLOCKED', 'PROD_ONLY_BLOCKED', 'ON_HOLD', 'REJECTED'] } } },
      Policy: {
        type: 'object', required: ['name'],
        properties: {
          level: { type: 'string', readOnly: true }, name: { type: 'string' }, ...quota,
          stop_on_quota_reach: { type: 'boolean', default: true },
          burst: { type: 'object', properties: { requests: { type: 'integer' }, time_unit: { type: 'string', enum: ['sec', 'min'] } } },
          condition_groups: { type: 'array', description: 'advanced policies', items: { type: 'object', properties: { ...quota, conditions: { type: 'array', items: { type: 'object', properties: { type: { type: 'string', enum: ['header', 'query', 'jwt_claim', 'ip', 'ip_range'] }, name: { type: 'string' }, value: { type: 'string' }, invert: { type: 'boolean' } } } } } } },
          key_template: { type: 'string', description: 'custom policies: what the counter is keyed on' },
          source: { type: 'string', readOnly: true },
        },
      },
      BlockCondition: {
        type: 'object', required: ['type', 'value'],
        properties: {
          id: { type: 'string', readOnly: true }, type: { type: 'string', enum: ['USER', 'IP', 'IP_RANGE', 'APPLICATION', 'API'] },
          value: { type: 'string', description: 'user name; IP; range a-b or CIDR; owner:application or application; API context /ctx/version' },
          enabled: { type: 'boolean', default: true }, invert: { type: 'boolean', default: false }, source: { type: 'string', readOnly: true },
        },
      },
      User: {
        type: 'object',
        properties: { username: { type: 'string' }, roles: { type: 'array', items: { type: 'string' } }, claims: { type: 'object', additionalProperties: { type: 'string' } }, source: { type: 'string', readOnly: true } },
      },
      UserCreate: {
        type: 'object', required: ['username', 'password'],
        properties: { username: { type: 'string' }, password: { type: 'string', writeOnly: true }, roles: { type: 'array', items: { type: 'string' } }, claims: { type: 'object', additionalProperties: { type: 'string' } } },
      },
      Role: {
        type: 'object', required: ['name'],
        properties: { name: { type: 'string' }, scopes: { type: 'array', items: { type: 'string' } }, source: { type: 'string', readOnly: true } },
      },
      Gateway: {
        type: 'object',
        properties: {
          gatewayId: { type: 'string' }, status: { type: 'string', enum: ['ACTIVE', 'EXPIRED'] }, labels: { type: 'array', items: { type: 'string' } },
          host: { type: 'string' }, role: { type: 'string' }, properties: { type: 'object' }, registeredAt: { type: 'string', format: 'date-time' }, lastHeartbeat: { type: 'string', format: 'date-time' },
          deployments: { type: 'array', items: { type: 'object', properties: { apiId: { type: 'string' }, revision: { type: 'string' }, action: { type: 'string', enum: ['DEPLOY', 'UNDEPLOY'] }, deployedAt: { type: 'string', format: 'date-time' } } } },
        },
      },
    },
  },
} as const;
