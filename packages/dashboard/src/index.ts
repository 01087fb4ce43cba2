export { type AccountService, createAccountService } from './accounts.js';
export { tidingsDashboard } from './app.js';
export { normaliseEmail } from './codes.js';
export type { DashboardOptions, SignupPolicy } from './options.js';
export { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
export { createSmtpMailer } from './smtp-mailer.js';
