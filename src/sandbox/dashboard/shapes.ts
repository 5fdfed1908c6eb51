/**
 * What the dashboard reads from the sandbox's event stream, and the names it gives the page's parts: types only.
 * The script's functions share them here because they may import nothing that stays after compiling (app.ts).
 */
export interface LifeEntry { at: string; status?: string; what: string }
export interface OrderView {
  orderNo: string; reference: string; payMethod: string; status: string; amount: { total: number; currency: string };
  productName: string; nextAction: string | null; referenceCode: string | null; sn: string | null; failureCode: string | null;
  expiresAt: string; life: LifeEntry[]; plan: { status: string; at: string | null; expectationId: string } | null;
}
export interface RefundView {
  reference: string; merchantId: string; originalReference: string; amount: { total: number; currency: string };
  orderStatus: string; errorCode: string | null; settlesAt: string; life: LifeEntry[];
}
export interface MessageView { id: number; orderNo: string; reference: string; channel: string; to: string; subject?: string; text: string; at: number }
export interface AttemptView {
  id: number; attempt: number; trigger: string; fault?: string; note?: string; at: number; headers: Record<string, string>;
  status: number | null; answer?: string; error?: string; acknowledged: boolean;
}
export interface DeliveryView { notifyId: string; orderNo: string; reference: string; url: string | null; state: string; nextAttemptAt: number | null; attempts: AttemptView[] }
export interface FaultView { id: string; kind: string; remaining: number; delayMs?: number; orderNo?: string; reference?: string; field?: string; afterMinutes?: number }
export interface ExpectationView {
  id: string; target: string; reference: string; nextAction?: string; outcome?: string; failureCode?: string; afterMinutes?: number;
  state: string; orderNo?: string; note?: string;
}
/** A payment link the shop's kit made: its checkout's orders are its reference and that reference's attempts. */
export interface LinkView { url: string; reference: string; amount: { total: number; currency: string }; productName: string; expiresAt: number; madeAt: number }
export interface Vocabulary {
  faultKinds: string[]; deliveryFaults: Record<string, { does: string; kit: string }>; tamperFields: string[];
  expectationTargets: Record<string, { outcomes: string[]; nextActions: string[] }>; terminalStatuses: string[];
}
export interface State {
  clock: { nowMs: number; offsetMs: number }; orders: OrderView[]; refunds: RefundView[]; messages: MessageView[];
  deliveries: DeliveryView[]; faults: FaultView[]; deliveryFaults: FaultView[]; expectations: ExpectationView[]; links: LinkView[]; vocabulary: Vocabulary;
}
export type Section = 'links' | 'orders' | 'deliveries' | 'messages' | 'refunds' | 'expectations' | 'delivery-faults' | 'faults' | 'clock';
export type Child = Node | string | null | undefined | false;

/** A control call from the page: resolves to whether it succeeded (its failure is on the page already). */
export type Call = (method: 'POST' | 'DELETE', path: string, body?: unknown) => Promise<boolean>;
