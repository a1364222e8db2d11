/** Response schemas of the company document endpoints (SPEC "Company documents"); src/services/documents writes them. */
import { arr, component, dateTime, doc, int, num, obj, str, strN, uri, uuid, uuidN } from '../contract.js';

export const folder = component(
  'DocumentFolder',
  obj({
    folderId: uuid(),
    organizationId: uuid(),
    name: str(),
    parentId: doc(uuidN(), 'Null at the root'),
    path: doc(str(), 'e.g. /Contracts/2026'),
    externalId: strN(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
);

export const companyDocument = component(
  'CompanyDocument',
  obj({
    documentId: uuid(),
    organizationId: uuid(),
    name: str(),
    fileExtension: str(),
    mimeType: str(),
    size: doc(int(), 'Bytes'),
    folderId: doc(uuidN(), 'Null at the root'),
    cdnUrl: doc(uri(), 'Signed download URL, valid 1 hour'),
    path: str(),
    externalId: strN(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
);

export const folderReply = component('DocumentFolderReply', obj({ folder }));
export const folderList = component('DocumentFolderList', obj({ folders: doc(arr(folder), 'By path') }));
export const documentReply = component('CompanyDocumentReply', obj({ document: companyDocument }));
export const documentList = component('CompanyDocumentList', obj({ documents: doc(arr(companyDocument), 'By name') }));
export const documentUrl = component('CompanyDocumentUrl', obj({ cdnUrl: doc(uri(), 'Signed download URL, valid 1 hour') }));
export const storageStats = component(
  'StorageStats',
  obj({
    stats: obj({
      totalFiles: int(),
      totalSize: doc(int(), 'Bytes'),
      maxSize: doc(int(), 'Bytes'),
      usedPercentage: doc(num(), '0 to 100'),
      availableSize: doc(int(), 'Bytes'),
    }),
  }),
);
