import { key } from './types.js';

/**
 * Keys of the seed catalog (types.ts says how to read an entry): tenants.
 */

/** [tenant_mgt] and [multi_tenancy.*]. */
export const TENANCY = [
  // [tenant_mgt]
  key('tenant_mgt', 'enable_email_domain', 'boolean', { default: false, notes: 'catalog type string, takes true/false; allows e-mail login for tenant users.' }),

  // [multi_tenancy.<suite>]
  key('multi_tenancy.<suite>', 'disable_tenant_management_emails', 'boolean', { default: true }),
  key('multi_tenancy.<suite>', 'email_validation_mandatory_for_login', 'boolean', { default: false }),
  key('multi_tenancy.<suite>', 'tenant_activation_moderated', 'boolean', { default: false }),
  key('multi_tenancy.<suite>', 'super_admin_email', 'string', { notes: 'E-mail address.' }),
  key('multi_tenancy.<suite>', 'skip_summary_generator', 'boolean', { default: false }),
  key('multi_tenancy.<suite>', 'notification_email', 'string', { notes: 'E-mail address.' }),
  key('multi_tenancy.<suite>', 'finance_notification_email', 'string', { notes: 'E-mail address.' }),
  key('multi_tenancy.<suite>', 'charge_on_registration', 'boolean', { default: false }),
  key('multi_tenancy.<suite>', 'public_cloud_setup', 'boolean', { default: true }),
  key('multi_tenancy.<suite>', '<web_analytics>_url', 'string', { notes: 'URL of a web analytics script.' }),
  key('multi_tenancy.<suite>', 'sso_loading_message', 'string', { notes: 'Text shown while single sign-on loads.' }),

  // [multi_tenancy.<suite>.<payment_provider>]
  key('multi_tenancy.<suite>.<payment_provider>', 'url', 'string', { notes: 'Payment account.' }),
  key('multi_tenancy.<suite>.<payment_provider>', 'username', 'string'),
  key('multi_tenancy.<suite>.<payment_provider>', 'password', 'string', { secret: true }),
  key('multi_tenancy.<suite>.<payment_provider>', 'signature', 'string', { secret: true, notes: 'Payment account API signature.' }),
  key('multi_tenancy.<suite>.<payment_provider>', 'environment', 'string'),

  // [multi_tenancy.<suite>.manager_service]
  key('multi_tenancy.<suite>.manager_service', 'url', 'string'),
  key('multi_tenancy.<suite>.manager_service', 'admin_username', 'string'),
  key('multi_tenancy.<suite>.manager_service', 'admin_password', 'string', { secret: true }),

  // [multi_tenancy.usage_agent.data_persistence_task]
  key('multi_tenancy.usage_agent.data_persistence_task', 'startup_delay_in_ms', 'duration', { default: 60000, notes: 'ms.' }),
  key('multi_tenancy.usage_agent.data_persistence_task', 'records_per_execution', 'integer', { default: 100 }),
  key('multi_tenancy.usage_agent.data_persistence_task', 'execution_interval_in_ms', 'integer', { default: -1, notes: 'milliseconds; catalog default -1.' }),

  // [multi_tenancy.throttling_manager_tasks]
  key('multi_tenancy.throttling_manager_tasks', 'data_providers', 'string[]', { notes: 'Class names.' }),
  // [multi_tenancy.throttling_manager_tasks.parameters]
  key('multi_tenancy.throttling_manager_tasks.parameters', 'interval', 'integer', { default: 10, notes: 'seconds.' }),
  key('multi_tenancy.throttling_manager_tasks.parameters', 'delay', 'integer', { default: 60, notes: 'seconds.' }),

  // [multi_tenancy.cloud_services]
  key('multi_tenancy.cloud_services', 'name', 'string'),
  key('multi_tenancy.cloud_services', 'default', 'boolean', { default: true }),
  key('multi_tenancy.cloud_services', 'key', 'string'),
  key('multi_tenancy.cloud_services', 'label', 'string'),
  key('multi_tenancy.cloud_services', 'link', 'string'),
  key('multi_tenancy.cloud_services', 'description', 'string'),

  // [multi_tenancy.billing.package.<package>]
  key('multi_tenancy.billing.package.<package>', 'name', 'string', { notes: 'Packages: demo, smb, custom.' }),
  key('multi_tenancy.billing.package.<package>', 'subscription_charge', 'integer', { default: 0 }),
  // [multi_tenancy.billing.package.<package>.users]
  key('multi_tenancy.billing.package.<package>.users', 'limit', 'string', { notes: 'unlimited allowed; sample demo 1.' }),
  key('multi_tenancy.billing.package.<package>.users', 'charge', 'string', { default: '0' }),
  // [multi_tenancy.billing.package.<package>.resource_volume]
  key('multi_tenancy.billing.package.<package>.resource_volume', 'limit', 'string', { notes: 'unlimited allowed; sample demo 20, smb 50, custom 1536.' }),
  key('multi_tenancy.billing.package.<package>.resource_volume', 'overuse_charge', 'string', { default: '0', notes: 'sample custom 0.03.' }),
  // [multi_tenancy.billing.package.<package>.bandwidth]
  key('multi_tenancy.billing.package.<package>.bandwidth', 'limit', 'string', { notes: 'unlimited allowed; sample demo 50, smb 150, custom 50.' }),
  key('multi_tenancy.billing.package.<package>.bandwidth', 'overuse_charge', 'string', { default: '0' }),
] as const;
