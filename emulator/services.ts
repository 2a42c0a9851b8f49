import type { Emulator } from './emulator.js';
import { imageService } from './images/background.js';
import { startWebhookService } from './webhooks/background.js';
import { eventRetentionService } from './orders/retention.js';

/**
 * Background work that lives as long as the emulator (webhook dispatcher, image fetcher). Each
 * starts with the emulator and registers its own reset and close hooks through `emulator.onReset`
 * and `emulator.onClose`.
 */
export type Service = (emulator: Emulator) => void | Promise<void>;

export const SERVICES: Service[] = [imageService, startWebhookService, eventRetentionService];
