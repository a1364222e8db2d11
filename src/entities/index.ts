/** Every entity the ORM knows; new entities are added here. */
import { RowCount } from './RowCount.js';
import { AnalyticsCustomerPeriod, AnalyticsDaily, AnalyticsLabel, AnalyticsRepPeriod, AnalyticsSkuPeriod } from './Analytics.js';
import { ApiCredential } from './ApiCredential.js';
import { Cart, CartItem } from './Cart.js';
import { CommissionAdjustment, CommissionEntry, CommissionPlan, CommissionStatement } from './Commission.js';
import { Customer } from './Customer.js';
import { Order, OrderItem, OrderNumberCounter } from './Order.js';
import { CustomerAddress } from './CustomerAddress.js';
import { CustomerContact } from './CustomerContact.js';
import { Category } from './Category.js';
import { EmailMessage } from './EmailMessage.js';
import { IdempotencyRecord } from './IdempotencyRecord.js';
import { WorkflowStartOutbox } from './WorkflowStartOutbox.js';
import { ApprovalSignalOutbox } from './ApprovalSignalOutbox.js';
import { SpendingAdmission } from './SpendingAdmission.js';
import { PaymentReconciliation } from './PaymentReconciliation.js';
import { HostedPaymentSetup } from './HostedPaymentSetup.js';
import { Image } from './Image.js';
import { Invoice, InvoiceCounter, InvoicePayment } from './Invoice.js';
import { ImageIngestion, ImageIngestionItem } from './ImageIngestion.js';
import { ImportChunkRun, ImportJob, ImportRecordError } from './ImportJob.js';
import { Organization } from './Organization.js';
import { OrganizationMember } from './OrganizationMember.js';
import { PasswordToken } from './PasswordToken.js';
import { PaymentMethod } from './PaymentMethod.js';
import { PaymentTerm } from './PaymentTerm.js';
import { Catalog, CatalogAssignment, CatalogSelection } from './Catalog.js';
import { PriceTier } from './PriceTier.js';
import { PriceList, PriceListAssignment, PriceListPrice } from './PriceList.js';
import { Product } from './Product.js';
import { ProductPrice } from './ProductPrice.js';
import { RateLimitBucket } from './RateLimitBucket.js';
import { OrganizationSalesRep } from './OrganizationSalesRep.js';
import { SalesRep } from './SalesRep.js';
import { User } from './User.js';
import { UserCustomer } from './UserCustomer.js';
import { WebhookDelivery, WebhookEvent, WebhookSubscription } from './Webhook.js';
import { CompanyDocument, DocumentFolder } from './CompanyDocument.js';
import { Integration } from './Integration.js';
import { Quote, QuoteNumberCounter } from './Quote.js';
import { Shipment, ShipmentLine, ShipmentNumberCounter } from './Shipment.js';
import { ApprovalRequest, CustomerBuyer } from './Approval.js';
import { StockLevel, StockLocation, StockMovement } from './Stock.js';
export type { ApprovalSubject } from './Approval.js';

import { CreditNote, CreditNoteCounter, OrderCancellation } from './CreditNote.js';
import { OrderReturn, ReturnCounter } from './Return.js';

export {
  StockLocation,
  StockLevel,
  StockMovement,
  CreditNote,
  CreditNoteCounter,
  OrderCancellation,
  OrderReturn,
  ReturnCounter,
  ApprovalRequest,
  CustomerBuyer,
  Quote,
  QuoteNumberCounter,
  Shipment,
  ShipmentLine,
  ShipmentNumberCounter,
  Cart,
  CartItem,
  Order,
  OrderItem,
  OrderNumberCounter,
  IdempotencyRecord,
  WorkflowStartOutbox,
  ApprovalSignalOutbox,
  SpendingAdmission,
  PaymentReconciliation,
  ApiCredential,
  Customer,
  CustomerAddress,
  CustomerContact,
  EmailMessage,
  Organization,
  OrganizationMember,
  PasswordToken,
  PriceTier,
  PriceList,
  PriceListPrice,
  PriceListAssignment,
  RateLimitBucket,
  User,
  UserCustomer,
  Category,
  Product,
  ProductPrice,
  Image,
  ImageIngestion,
  ImageIngestionItem,
  SalesRep,
  OrganizationSalesRep,
  Invoice,
  InvoicePayment,
  InvoiceCounter,
  PaymentMethod,
  PaymentTerm,
  Catalog,
  CatalogSelection,
  CatalogAssignment,
  HostedPaymentSetup,
  CommissionPlan,
  CommissionStatement,
  CommissionEntry,
  CommissionAdjustment,
  AnalyticsDaily,
  AnalyticsCustomerPeriod,
  AnalyticsRepPeriod,
  AnalyticsSkuPeriod,
  AnalyticsLabel,
  RowCount,
  ImportJob,
  ImportChunkRun,
  ImportRecordError,
  WebhookSubscription,
  WebhookEvent,
  WebhookDelivery,
  DocumentFolder,
  CompanyDocument,
  Integration,
};

export const entities = [
  StockLocation,
  StockLevel,
  StockMovement,
  IdempotencyRecord,
  WorkflowStartOutbox,
  ApprovalSignalOutbox,
  SpendingAdmission,
  PaymentReconciliation,
  Organization,
  User,
  OrganizationMember,
  ApiCredential,
  PriceTier,
  PriceList,
  PriceListPrice,
  PriceListAssignment,
  PasswordToken,
  RateLimitBucket,
  EmailMessage,
  Customer,
  CustomerAddress,
  CustomerContact,
  UserCustomer,
  SalesRep,
  OrganizationSalesRep,
  Image,
  ImageIngestion,
  ImageIngestionItem,
  Category,
  Product,
  ProductPrice,
  Cart,
  CartItem,
  Order,
  OrderItem,
  OrderNumberCounter,
  Invoice,
  InvoicePayment,
  CreditNote,
  CreditNoteCounter,
  OrderCancellation,
  OrderReturn,
  ReturnCounter,
  InvoiceCounter,
  PaymentMethod,
  PaymentTerm,
  Catalog,
  CatalogSelection,
  CatalogAssignment,
  HostedPaymentSetup,
  CommissionPlan,
  CommissionStatement,
  CommissionEntry,
  CommissionAdjustment,
  AnalyticsDaily,
  AnalyticsCustomerPeriod,
  AnalyticsRepPeriod,
  AnalyticsSkuPeriod,
  AnalyticsLabel,
  RowCount,
  ImportJob,
  ImportChunkRun,
  ImportRecordError,
  WebhookSubscription,
  WebhookEvent,
  WebhookDelivery,
  DocumentFolder,
  CompanyDocument,
  Integration,
  Quote,
  QuoteNumberCounter,
  Shipment,
  ShipmentLine,
  ShipmentNumberCounter,
  CustomerBuyer,
  ApprovalRequest,
];
