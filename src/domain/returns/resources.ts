/** Response schemas of the return (RMA) operations (docs/returns.md "Returns"). */
import { arr, component, dateTime, dateTimeN, doc, int, num, obj, objN, oneOf, oneOfN, str, strN, uuid, uuidN, type Out } from '../contract.js';
import { genericPage } from '../resources.js';

export const RETURN_STATUS_VALUES = ['Requested', 'Approved', 'Rejected', 'Received', 'Refunded', 'Credited', 'Closed', 'Expired'] as const;

const returnLine = component(
  'ReturnLine',
  obj({
    sku: str(),
    productName: strN(),
    quantity: int(),
    price: num(),
    amount: num(),
    reason: str(),
    disposition: doc(oneOfN(['restock', 'scrap'] as const), 'Set on receipt: restocked to locationId (a stock receipt) or scrapped'),
    locationId: uuidN(),
  }),
);

export const returnResource = component(
  'Return',
  obj({
    returnId: uuid(),
    rmaNumber: doc(str(), 'Gapless per organization', 'RMA-000001'),
    status: doc(oneOf(RETURN_STATUS_VALUES), 'Requested -> Approved or Rejected -> Received -> Refunded or Credited -> Closed; Expired when approved goods never arrived'),
    orderId: uuid(),
    orderNumber: str(),
    customerNumber: str(),
    currencyCode: str(),
    amount: doc(num(), 'Returned units x line price'),
    lines: arr(returnLine),
    refundMethod: doc(oneOfN(['card', 'credit'] as const), 'How the return pays back (set on approval or receipt; the organization policy unless staff chose)'),
    refund: doc(objN({ amount: num(), idempotencyKey: doc(str(), 'The provider refund key and workflow id', 'return-…') }), 'The card refund; null: none'),
    creditNoteId: doc(uuidN(), 'The credit note that credited the return on account'),
    message: doc(strN(), 'Staff message of the approval or rejection'),
    steps: doc(arr(obj({ status: str(), at: dateTime(), by: strN(), note: strN() })), 'Each step with its time, oldest first'),
    reminderSentAt: dateTimeN(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
);
export type ReturnOut = Out<typeof returnResource>;
export const returnPage = genericPage('ReturnPage', returnResource);

export const returnSettings = component(
  'ReturnSettings',
  obj({
    returnWindowDays: doc(int(), 'Days after the shipment a buyer may request a return (staff: any time)'),
    returnRefundPolicy: doc(oneOf(['card', 'credit'] as const), 'card: refund to the order\'s card (on-account orders are credited); credit: a credit note on account'),
  }),
);
