// Notifications: what the package root exports of src/notify. A small JSON POSTed to webhooks, or handed to a command,
// when a run ends, is blocked, waits out a usage limit, or a batch task needs review. A host-side concern: hosts and
// the fleet use it, the run never sees it.
export { DEFAULT_DELIVERY, type DeliveryPolicy } from './delivery-policy.js';
export {
  headline,
  NOTIFICATION_EVENTS,
  type Notification,
  type NotificationEvent,
  notification,
  notificationSchema,
} from './notification.js';
export { createNotifier, type Notifier, type NotifierOptions, type NotifyTargets } from './notifier.js';
export { notifyUrl } from './notify-url.js';
export {
  type RunNotificationOptions,
  type RunNotifications,
  runNotifications,
} from './run-notifications.js';
export { chatMessage, type WebhookShape, webhookBody, webhookShapeOf } from './webhook-body.js';
