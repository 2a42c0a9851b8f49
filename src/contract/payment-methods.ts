import type { PaymentMethod } from './store.js';

/**
 * The payment methods a new store accepts (the emulator provisions stores with them), and the names
 * `simulate store-update --payment-methods` gives a base code written without one.
 */
export const DEFAULT_PAYMENT_METHODS: PaymentMethod[] = [
  { code: 'cash', name: 'Efectivo' },
  { code: 'bank_transfer', name: 'Transferencia bancaria' },
  { code: 'card_on_delivery', name: 'Tarjeta en la entrega' },
  { code: 'qr', name: 'Pago con QR' },
  { code: 'other', name: 'Otro' },
  { code: 'custom_vale', name: 'Vale de la casa' },
];
