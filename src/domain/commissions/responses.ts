/**
 * Response schemas of the commission endpoints: plans (SPEC "Commission plan", PascalCase),
 * statements, their summaries and pending clawbacks (camelCase). The views in
 * src/services/commissions/ are typed with them.
 */
import { arr, bool, component, date, dateTime, dateTimeN, doc, int, num, numN, obj, oneOf, str, strN, uuid } from '../contract.js';
import { genericPage } from '../resources.js';

export const COMMISSION_STATEMENT_STATUSES = ['Generating', 'Draft', 'Approved', 'Rejected', 'Paid'] as const;

export const commissionRule = component(
  'CommissionRule',
  obj({
    Priority: doc(int(), 'Lower is evaluated first; the first match wins'),
    Name: str(),
    Rate: doc(num(), 'Fraction, e.g. 0.05 = 5 %'),
    Match: obj({
      SkuPatterns: doc(arr(str()), 'Wildcards (*, ?) allowed'),
      ProductNamePatterns: arr(str()),
      CustomerNumbers: arr(str()),
      MinLineAmount: doc(numN(), 'Line subtotal at or above'),
      MaxLineAmount: doc(numN(), 'Line subtotal at or below'),
    }),
  }),
);

export const commissionPlan = component(
  'CommissionPlan',
  obj({
    CommissionPlanId: uuid(),
    SalesRepId: uuid(),
    Name: str(),
    Description: strN(),
    DefaultRate: doc(num(), 'Fraction used when no rule matches'),
    EffectiveStartDate: dateTime(),
    EffectiveEndDate: dateTimeN(),
    Rules: doc(arr(commissionRule), 'By Priority'),
    CustomerOverrides: arr(obj({ CustomerNumber: str(), EffectiveStartDate: dateTime(), EffectiveEndDate: dateTimeN(), Rules: arr(commissionRule) })),
    Active: bool(),
    CreatedAt: dateTime(),
    UpdatedAt: dateTime(),
  }),
);

export const commissionPlanList = genericPage('CommissionPlanPage', commissionPlan);

const money = (what: string) => doc(num(), `${what}, in the statement's currency`);

export const commissionStatement = component(
  'CommissionStatement',
  obj({
    statementId: uuid(),
    salesRepId: uuid(),
    repNumber: str(),
    startDate: doc(date(), 'First day of the period (inclusive)'),
    endDate: doc(date(), 'Last day of the period (inclusive)'),
    status: oneOf(COMMISSION_STATEMENT_STATUSES),
    currencyCode: str(),
    entries: doc(
      arr(
        obj({
          invoiceId: uuid(),
          invoiceNumber: str(),
          customerNumber: str(),
          invoiceDate: dateTime(),
          base: money('Commissionable amount of the invoice'),
          commission: money('Commission on the invoice'),
          lines: arr(obj({ sku: str(), productName: strN(), quantity: num(), base: num(), rule: doc(str(), 'The rule that matched, or the default rate'), rate: num(), commission: num() })),
        }),
      ),
      'One per commissionable invoice of the period, by invoice date',
    ),
    adjustments: doc(arr(obj({ type: doc(str(), 'Clawback'), invoiceNumber: str(), amount: money('Negative for a clawback'), reason: str(), createdAt: dateTime() })), 'Clawbacks this statement took'),
    totalCommission: money('Sum of the entries'),
    payableTotal: money('Total commission plus adjustments'),
    events: arr(obj({ type: str(), at: dateTime(), by: doc(strN(), 'User id or API subject; null for the system'), note: strN() })),
    approvedAt: dateTimeN(),
    approvedBy: strN(),
    paidAt: dateTimeN(),
    paymentReference: strN(),
    rejectedReason: strN(),
    workflowId: str(),
    createdAt: dateTime(),
  }),
);

export const commissionStatementSummary = component(
  'CommissionStatementSummary',
  obj({
    statementId: uuid(),
    salesRepId: uuid(),
    repNumber: str(),
    startDate: date(),
    endDate: date(),
    status: oneOf(COMMISSION_STATEMENT_STATUSES),
    currencyCode: str(),
    totalCommission: num(),
    payableTotal: num(),
    approvedAt: dateTimeN(),
    paidAt: dateTimeN(),
    createdAt: dateTime(),
  }),
);
export const commissionStatementPage = genericPage('CommissionStatementPage', commissionStatementSummary);

export const statementRequested = component('CommissionStatementRequested', obj({ statementId: uuid(), workflowId: str() }));

export const commissionClawbacks = component(
  'CommissionClawbackList',
  obj({
    clawbacks: arr(
      obj({
        type: oneOf(['Clawback'] as const),
        salesRepId: uuid(),
        sourceStatementId: uuid(),
        invoiceNumber: str(),
        cause: doc(str(), 'void, cancel, or refund:<refundId>'),
        currencyCode: str(),
        amount: doc(num(), 'Negative'),
        reason: str(),
        recordedAt: doc(dateTimeN(), 'When it was recorded; null when computable now but not recorded yet'),
      }),
    ),
  }),
);
