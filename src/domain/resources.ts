/**
 * The main resources as the API answers them (SPEC field names), as yup response schemas:
 * the serialisers (productView, customerView, orderView, invoiceView, cartView, imageView)
 * type their result with these, and /openapi.json publishes them as components/schemas.
 * Building blocks: ./contract.ts.
 */
import { INVOICE_STATUSES } from './invoices/state.js';
import { ORDER_STATUSES } from './orders/status.js';
import { APPROVAL_STATUSES, BUYER_ROLES } from './approvals/rules.js';
import { QUOTE_STATUSES } from './quotes/states.js';
import { arr, bool, boolN, component, dateTime, dateTimeN, doc, extensible, int, intN, num, numN, obj, objN, oneOf, open, opt, str, strN, uri, uuid, uuidN } from './contract.js';

// ---- envelopes (SPEC conventions 7-9) -------------------------------------------------------

/** `{ data, totalRecords, currentPage, totalPages }`: products, customers, orders, carts, images. */
export const dataPage = (name: string, item: ReturnType<typeof obj>, withPageSize = false) =>
  component(
    name,
    obj({
      data: arr(item),
      totalRecords: doc(int(), 'Rows matching the filters'),
      currentPage: int(),
      totalPages: int(),
      ...(withPageSize ? { pageSize: int() } : {}),
    }),
  );

/** `{ items, totalCount, pageNumber, pageSize, totalPages }`: invoices. */
export const itemsPage = (name: string, item: ReturnType<typeof obj>) =>
  component(name, obj({ items: arr(item), totalCount: int(), pageNumber: int(), pageSize: int(), totalPages: int() }));

/** The generic PascalCase form `{ Data, TotalCount, PageNumber, PageSize }` of the operations SPEC does not define. */
export const genericPage = (name: string, item: ReturnType<typeof obj>) => component(name, obj({ Data: arr(item), TotalCount: int(), PageNumber: int(), PageSize: int() }));

/** `{ data: { id, … }, links: [{ rel, href }] }` of a created order or invoice. */
export const link = component('Link', obj({ rel: str(), href: str() }));

// ---- addresses ------------------------------------------------------------------------------

/** Orders and invoices (stored JSON: a field the writer left out stays absent). */
export const postalAddress = component(
  'PostalAddress',
  obj({ address1: opt(strN()), address2: opt(strN()), city: opt(strN()), stateProvince: opt(strN()), zipPostalCode: opt(strN()), country: opt(strN()) }),
);

/** Customer addresses. */
export const customerAddress = component(
  'CustomerAddress',
  obj({
    externalId: strN(),
    line1: strN(),
    line2: strN(),
    city: strN(),
    state: strN(),
    postalCode: strN(),
    country: doc(strN(), 'ISO 3166-1 alpha-2', 'US'),
    addressType: oneOf(['Billing', 'Shipping'] as const),
    phone: strN(),
    isPrimary: bool(),
  }),
);

/** Cart shipping address (SPEC cart shape); extra keys the caller sent are kept. */
export const cartAddress = component(
  'CartAddress',
  extensible(obj({ line1: opt(strN()), line2: opt(strN()), city: opt(strN()), state: opt(strN()), postalCode: opt(strN()), country: opt(strN()), phone: opt(strN()), addressType: opt(strN()), isPrimary: opt(boolN()) })),
);

// ---- products -------------------------------------------------------------------------------

export const productPrice = component('ProductPrice', obj({ tier: str(), price: num(), priceFormatted: str(), atQuantity: int() }));

export const image = component(
  'Image',
  obj({
    id: uuid(),
    organizationId: uuid(),
    name: str(),
    height: int(),
    width: int(),
    contentSize: int(),
    source: str(),
    format: doc(str(), 'jpg, png, webp or gif'),
    active: bool(),
    sku: strN(),
    categoryName: strN(),
    baseUrl: uri(),
    smallUrl: uri(),
    mediumUrl: uri(),
    largeUrl: uri(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
);

export const product = component(
  'Product',
  obj({
    productId: uuid(),
    organizationId: uuid(),
    sku: str(),
    name: str(),
    description: strN(),
    category: strN(),
    price: doc(numN(), "Unit price at quantity 1 for the caller: a customer's price list in force, else the caller's tier; null without a price"),
    priceFormatted: strN(),
    currencyCode: strN(),
    priceListId: opt(doc(uuid(), "Customer tokens: the price list that sets `price`; absent when the tier does (docs/pricing.md)")),
    prices: doc(arr(productPrice), 'Customer tokens: their own tier only'),
    quantityOnHand: doc(int(), 'A tracked product (trackInventory): the sum of its stock levels over locations; a write is an adjustment at the default location'),
    trackInventory: doc(bool(), 'Stock is kept per location and reserved by orders (docs/fulfillment.md "Stock")'),
    allowBackorder: doc(bool(), 'A tracked product: lines beyond what is available are backordered instead of refused'),
    leadTimeDays: doc(intN(), 'Days to restock, shown with a backorder'),
    available: doc(intN(), 'A tracked product: on hand minus reserved over all locations; null when not tracked'),
    backorder: doc(bool(), 'A tracked product with nothing available that may be backordered (see leadTimeDays)'),
    minimumOrderQuantity: doc(int(), "Customer tokens: the rule in force for that customer (its price list entry's override, else the product's; docs/pricing.md)"),
    maximumOrderQuantity: doc(intN(), 'Null: no maximum. Customer tokens: the rule in force for that customer, as minimumOrderQuantity'),
    quantityIncrement: doc(int(), 'Order quantities must be a multiple of it. Customer tokens: the rule in force for that customer, as minimumOrderQuantity'),
    weight: numN(),
    weightUnit: strN(),
    dimensions: strN(),
    dimensionsUnit: strN(),
    upc: strN(),
    active: bool(),
    images: arr(image),
    productAttributes: open(),
    externalId: strN(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
);
export const productPage = dataPage('ProductPage', product);

// ---- customers ------------------------------------------------------------------------------

export const customerContact = component(
  'CustomerContact',
  obj({ externalId: strN(), title: strN(), firstName: strN(), lastName: strN(), email: strN(), phone: strN(), fax: strN(), isPrimary: bool(), contactType: strN() }),
);

export const customer = component(
  'Customer',
  obj({
    customerNumber: str(),
    organizationId: uuid(),
    companyName: str(),
    companyEmail: str(),
    companyPhone: strN(),
    companyFax: strN(),
    pricing: doc(str(), 'Price tier name'),
    active: bool(),
    repNumber: strN(),
    terms: strN(),
    externalId: strN(),
    addresses: arr(customerAddress),
    contacts: arr(customerContact),
    customerAttributes: open(),
  }),
);
export const customerPage = dataPage('CustomerPage', customer);

// ---- orders ---------------------------------------------------------------------------------

export const salesRepSnapshot = component(
  'SalesRepSnapshot',
  obj({ repNumber: opt(strN()), firstName: opt(strN()), lastName: opt(strN()), fullName: opt(strN()), email: opt(strN()), phoneNumber: opt(strN()) }),
);

export const orderCustomer = component(
  'OrderCustomer',
  obj({
    customerNumber: str(),
    companyName: str(),
    companyEmail: opt(strN()),
    companyPhone: opt(strN()),
    companyFax: opt(strN()),
    billingAddress: opt(postalAddress.nullable()),
    shippingAddress: opt(postalAddress.nullable()),
  }),
);

export const orderItem = component(
  'OrderItem',
  obj({
    sku: str(),
    productName: str(),
    quantity: int(),
    price: num(),
    priceFormatted: str(),
    subTotal: num(),
    subTotalFormatted: str(),
    backorderedQuantity: opt(doc(int(), 'Units of a tracked product waiting for stock; present only when above 0 (docs/fulfillment.md "Reservations")')),
    shippedQuantity: doc(int(), "Units of the line its shipments carried so far (docs/fulfillment.md); 0 before the first shipment"),
    cancelledQuantity: opt(doc(int(), 'Units of the line cancelled (POST /api/orders/{orderId}/cancel; docs/returns.md "Cancellation"); present only when above 0')),
    priceListId: opt(doc(uuid(), 'The price list that priced the line when the order was placed; absent when the tier priced it or the price was given as is (docs/pricing.md)')),
  }),
);

export const order = component(
  'Order',
  obj({
    id: uuid(),
    organizationId: uuid(),
    orderNumber: str(),
    orderDate: dateTime(),
    orderStatus: oneOf(ORDER_STATUSES),
    orderType: str(),
    poNumber: strN(),
    priceTier: strN(),
    currencyCode: str(),
    terms: strN(),
    channel: strN(),
    externalId: strN(),
    notes: strN(),
    originationCartId: uuidN(),
    quoteId: doc(uuidN(), 'The quote this order was accepted from (docs/quotes.md), else null'),
    active: bool(),
    customer: orderCustomer,
    primarySalesRep: salesRepSnapshot.nullable(),
    takenBySalesRep: salesRepSnapshot.nullable(),
    shippingDetails: objN({ method: opt(strN()), total: opt(numN()) }),
    items: arr(orderItem),
    subtotal: num(),
    subtotalFormatted: str(),
    discountAmount: num(),
    discountAmountFormatted: str(),
    tax: num(),
    taxFormatted: str(),
    shippingTotal: num(),
    shippingTotalFormatted: str(),
    total: num(),
    totalFormatted: str(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
);
export const orderPage = dataPage('OrderPage', order);

/** `{ data: { id, orderNumber }, links }` of POST /api/orders. */
export const createdOrder = component('CreatedOrder', obj({ data: obj({ id: uuid(), orderNumber: str() }), links: arr(link) }));

// ---- invoices -------------------------------------------------------------------------------

export const invoicePayment = component(
  'InvoicePayment',
  obj({
    paymentId: uuid(),
    amount: num(),
    amountFormatted: str(),
    refundedAmount: num(),
    refundedAmountFormatted: str(),
    currencyCode: str(),
    method: doc(oneOf(['EFT', 'Check', 'Wire', 'Cash', 'Card', 'CreditNote'] as const), 'CreditNote: a credit note applied to the invoice (reference: its number)'),
    status: oneOf(['Completed', 'Pending', 'Failed'] as const),
    paymentDate: dateTimeN(),
    reference: strN(),
    notes: strN(),
    cardType: strN(),
    last4Digits: strN(),
  }),
);

export const invoice = component(
  'Invoice',
  obj({
    id: uuid(),
    organizationId: uuid(),
    orderId: uuidN(),
    orderNumber: strN(),
    invoiceNumber: str(),
    externalId: strN(),
    status: oneOf(INVOICE_STATUSES),
    invoiceDate: dateTimeN(),
    dueDate: dateTimeN(),
    terms: strN(),
    currencyCode: str(),
    poNumber: strN(),
    notes: strN(),
    customer: obj({
      customerNumber: str(),
      companyName: strN(),
      companyEmail: strN(),
      companyPhone: strN(),
      billingAddress: postalAddress.nullable(),
      shippingAddress: postalAddress.nullable(),
    }),
    primarySalesRep: obj({ repNumber: strN(), firstName: strN(), lastName: strN(), fullName: strN(), email: strN(), phoneNumber: strN() }),
    items: arr(
      obj({
        sku: str(),
        productName: strN(),
        quantity: num(),
        price: num(),
        lineTotal: num(),
        priceFormatted: str(),
        lineTotalFormatted: str(),
        priceListId: opt(doc(uuid(), "The price list that priced the line: the order line's, for the invoice of an order placed through checkout or a quote, or the resolver's on a rep's invoice; absent when the tier priced it or the price was given as is (docs/invoices.md)")),
      }),
    ),
    payments: arr(invoicePayment),
    refunds: arr(obj({ refundId: str(), paymentId: uuidN(), amount: num(), amountFormatted: str(), reason: strN(), createdAt: dateTime() })),
    discount: objN({ code: strN(), type: oneOf(['Percentage', 'Amount'] as const), value: num(), description: strN() }),
    importedInvoiceTotal: numN(),
    importedBalance: numN(),
    subtotal: num(),
    subtotalFormatted: str(),
    discountAmount: num(),
    discountAmountFormatted: str(),
    tax: num(),
    taxFormatted: str(),
    total: num(),
    totalFormatted: str(),
    amountPaid: num(),
    amountPaidFormatted: str(),
    balance: num(),
    balanceFormatted: str(),
    createdAt: dateTimeN(),
    updatedAt: dateTimeN(),
  }),
);
export const invoicePage = itemsPage('InvoicePage', invoice);

// ---- carts ----------------------------------------------------------------------------------

export const cartItem = component(
  'CartItem',
  obj({
    itemId: uuid(),
    sku: str(),
    name: str(),
    quantity: int(),
    unitPrice: num(),
    lineTotal: num(),
    priceListId: opt(doc(uuid(), 'The price list that priced the line; absent when the tier priced it (docs/pricing.md)')),
    repriced: opt(doc(bool(), 'Present (true) when the checkout re-priced the line because the prices in force changed since it was priced')),
    previousUnitPrice: opt(doc(num(), 'With repriced: the unit price the line had before the checkout re-priced it')),
  }),
);

export const cart = component(
  'Cart',
  obj({
    shoppingCartId: uuid(),
    customerNumber: str(),
    organizationId: uuid(),
    companyName: str(),
    status: oneOf(['PENDING', 'CLOSED'] as const),
    pricingTier: str(),
    currencyCode: str(),
    orderType: str(),
    items: arr(cartItem),
    subtotal: num(),
    specialInstructions: strN(),
    poNumber: strN(),
    shippingAddress: cartAddress.nullable(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
);
export const cartPage = dataPage('CartPage', cart);


// ---- quotes (docs/quotes.md) ------------------------------------------------------------------

export const quoteLine = component(
  'QuoteLine',
  obj({
    sku: str(),
    productName: str(),
    quantity: int(),
    targetPrice: doc(numN(), "The buyer's hoped-for unit price"),
    listPrice: doc(numN(), "The customer's price at the quantity when the version was made (the one resolver: a price list in force, else the tier with its quantity breaks)"),
    priceListId: opt(doc(uuid(), 'The price list that set listPrice; absent when the tier did (docs/pricing.md)')),
    unitPrice: doc(numN(), "The seller's unit price; null on the buyer's versions"),
    netUnitPrice: doc(numN(), 'unitPrice less the discount, rounded to the currency: the price the order takes'),
    lineTotal: numN(),
  }),
);

export const quoteVersion = component(
  'QuoteVersion',
  obj({
    version: int(),
    kind: oneOf(['Request', 'Offer', 'Counter'] as const),
    by: obj({ userId: strN(), role: str(), repNumber: strN() }),
    at: dateTime(),
    message: strN(),
    discountPercent: numN(),
    expiresAt: dateTimeN(),
    subtotal: numN(),
    discountAmount: numN(),
    total: numN(),
    totalFormatted: strN(),
    lines: arr(quoteLine),
  }),
);

export const quote = component(
  'Quote',
  obj({
    quoteId: uuid(),
    quoteNumber: doc(str(), 'Gapless per organization', 'Q-000042'),
    status: oneOf(QUOTE_STATUSES),
    customerNumber: str(),
    companyName: str(),
    priceTier: str(),
    currencyCode: str(),
    notes: strN(),
    cartId: uuidN(),
    requestedBy: obj({ userId: strN(), role: str() }),
    expiresAt: dateTimeN(),
    total: doc(numN(), "The latest offer's total; null before the first offer"),
    totalFormatted: strN(),
    orderId: uuidN(),
    orderNumber: strN(),
    rejectionReason: strN(),
    versions: doc(arr(quoteVersion), 'Every version, oldest first'),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
);
export const quotePage = genericPage('QuotePage', quote);

// ---- buyer approvals (docs/approvals.md) ------------------------------------------------------

export const customerBuyer = component(
  'CustomerBuyer',
  obj({
    userId: uuid(),
    email: strN(),
    firstName: strN(),
    lastName: strN(),
    role: oneOf(BUYER_ROLES),
    currencyCode: str(),
    orderLimit: doc(numN(), 'Per order; null: no limit'),
    monthlyLimit: doc(numN(), 'Per calendar month (UTC); null: no limit'),
    spentThisMonth: num(),
    updatedAt: dateTime(),
  }),
);
export const customerBuyerPage = genericPage('CustomerBuyerPage', customerBuyer);

export const approvalChainEntry = component(
  'ApprovalChainEntry',
  obj({
    type: oneOf(['Asked', 'Escalated', 'Approved', 'Rejected', 'Expired', 'TotalChanged', 'Supersedes', 'Withdrawn'] as const),
    at: dateTime(),
    level: intN(),
    userIds: doc(arr(str()), 'Who was asked (Asked, Escalated) or who decided'),
    by: strN(),
    note: strN(),
  }),
);

export const approval = component(
  'Approval',
  obj({
    approvalId: uuid(),
    status: oneOf(APPROVAL_STATUSES),
    subject: doc(oneOf(['Cart', 'Quote', 'Order'] as const), 'What the request holds: a checkout (Cart), a quote accept (Quote) or an order posted by the buyer (Order, stored PendingApproval until decided)'),
    customerNumber: str(),
    cartId: doc(uuidN(), 'Cart: the held checkout\'s cart'),
    quoteId: doc(uuidN(), 'Quote: the quote whose accept waits (it stays Quoted until the decision)'),
    orderId: doc(uuidN(), 'Order: the order waiting as PendingApproval'),
    requester: obj({ userId: uuid(), email: strN(), name: strN() }),
    reason: doc(str(), 'Which limit the order exceeds'),
    currencyCode: str(),
    total: doc(num(), 'The total this request asks to approve'),
    totalFormatted: str(),
    lines: arr(obj({ sku: str(), name: str(), quantity: int(), unitPrice: num(), lineTotal: num() })),
    level: int(),
    chain: arr(approvalChainEntry),
    decidedBy: strN(),
    decisionReason: strN(),
    orderNumber: doc(strN(), 'The order of the approved checkout, quote accept or posted order'),
    supersededBy: doc(uuidN(), 'Superseded: the request that asks for the new total (null when the new total is within the limits)'),
    supersedes: doc(uuidN(), 'The request this one replaced'),
    repricedTotal: doc(numN(), "Superseded: the cart's total at current prices when the approve found it changed"),
    expiresAt: dateTime(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
);
export const approvalPage = genericPage('ApprovalPage', approval);

// ---- price lists (docs/pricing.md) -----------------------------------------------------------

export const priceList = component(
  'PriceList',
  obj({
    priceListId: uuid(),
    name: str(),
    currencyCode: doc(str(), 'Only customers buying in this currency are priced by the list', 'USD'),
    validFrom: doc(dateTimeN(), 'In force from this instant (inclusive); null: open'),
    validTo: doc(dateTimeN(), 'In force until this instant (exclusive); null: open'),
    priority: doc(int(), 'The lowest number wins among the lists in force that price a line'),
    status: oneOf(['Draft', 'Active', 'Archived'] as const),
    customerNumbers: doc(arr(str()), 'Customers the list is assigned to directly'),
    priceTiers: doc(arr(str()), "Price tiers the list is assigned to (every customer of the tier)"),
    entryCount: doc(int(), 'How many SKUs the list prices'),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
);
export const priceListPage = dataPage('PriceListPage', priceList);
export const priceListEntry = component(
  'PriceListEntry',
  obj({
    sku: str(),
    prices: arr(obj({ price: num(), priceFormatted: str(), atQuantity: int() })),
    minimumOrderQuantity: doc(intN(), "Overrides the product's minimum for the customers the list prices the SKU for; null: the product's"),
    maximumOrderQuantity: doc(intN(), "Overrides the product's maximum; null: the product's"),
    quantityIncrement: doc(intN(), "Overrides the product's increment; null: the product's"),
  }),
);
export const priceListEntryPage = dataPage('PriceListEntryPage', priceListEntry);
