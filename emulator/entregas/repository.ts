import type { EntregaStatus } from '../../src/contract/entregas.js';

// The entregas aggregate's record and repository (independent deliveries; see docs/entregas.md).
// The adapters in emulator/store/* implement it.

export interface EntregaRecord {
  id: string;
  storeId: string;
  integrationId: string;
  requestKey: string;
  /** Canonical text of the creating request: the same request_key with other data is a conflict. */
  fingerprint: string;
  orderId: string | null;
  status: EntregaStatus;
  paymentMethod: 'cash' | 'bank_transfer' | 'card_on_delivery' | 'qr' | 'prepaid';
  customer: { name: string; phone: string };
  address: { line: string; reference: string | null };
  customerTotal: number;
  customerFee: number;
  courierFee: number;
  returnFee: number | null;
  settlementConfirmed: boolean;
  goodsReceived: boolean;
  refundConfirmed: boolean;
  transferReceived: boolean;
  cancelReason: string | null;
  notes: string | null;
  deliveryCode: string;
  trackingToken: string;
  history: { status: EntregaStatus; at: number; note: string | null }[];
  createdAt: number;
  updatedAt: number;
}

export interface EntregasRepository {
  insert(entrega: EntregaRecord): Promise<void>;
  /** Writes the fields an action changes (status, fees, confirmations, cancel reason, history). */
  update(entrega: EntregaRecord): Promise<void>;
  byId(id: string, options?: { lock?: boolean }): Promise<EntregaRecord | undefined>;
  byRequestKey(storeId: string, key: string): Promise<EntregaRecord | undefined>;
  byTrackingToken(token: string): Promise<EntregaRecord | undefined>;
  /** A delivery of that order still under way or done (not cancelled nor returned). */
  openForOrder(orderId: string): Promise<EntregaRecord | undefined>;
}
