// A container's names: rename (the store's name reservation, containerd's berth.name label, the rename event and,
// for a running container, its networks' aliases and hosts files) and the removal of a legacy link alias.
import type { Containerd } from '../containerd/client';
import * as containerApi from '../containerd/containers';
import { BerthError, conflict, invalidParameter, notFound } from '../errors';
import type { ContainerStore } from '../store/containers';
import { validateName } from '../translate/request/create';
import type { ContainerRecord } from '../types/container';
import { ContainerNetworking, parseLink } from './container-network';

export interface ContainerNamesDeps {
  ctr: Containerd;
  store: ContainerStore;
  networking: ContainerNetworking;
  publish: (rec: ContainerRecord, action: string, extra?: Record<string, string>) => void;
}

export class ContainerNames {
  constructor(private readonly d: ContainerNamesDeps) {}

  async rename(rec: ContainerRecord, newName: string): Promise<void> {
    if (!newName) throw invalidParameter('Neither old nor new names may be empty');
    const n = newName.startsWith('/') ? newName : `/${newName}`;
    // the reference's words: its name reservation's errors, headed "Error when allocating new name: " (the name
    // with its slash), 400 and 409 as at create
    const allocating = (err: unknown): never => {
      if (err instanceof BerthError) throw new BerthError(err.kind, `Error when allocating new name: ${err.message}`);
      throw err;
    };
    try {
      validateName(n);
    } catch (err) {
      allocating(err);
    }
    if (n === rec.Name) throw invalidParameter(`Renaming a container with the same name as its current name`);
    try {
      this.d.store.reserveName(n, rec.Id);
    } catch (err) {
      allocating(err);
    }
    const old = rec.Name;
    rec.Name = n;
    try {
      await this.d.store.save(rec);
    } catch (err) {
      // not written (a full disk): the container keeps its old name, in memory as on disk
      rec.Name = old;
      this.d.store.releaseName(n, rec.Id);
      this.d.store.reserveName(old, rec.Id);
      throw err;
    }
    this.d.store.releaseName(old, rec.Id);
    await containerApi.setLabel(this.d.ctr, rec.Id, 'berth.name', n).catch(() => undefined);
    this.d.publish(rec, 'rename', { oldName: old });
    if (rec.State.Running) await this.d.networking.afterChange(rec).catch(() => undefined);
  }

  /**
   * `DELETE /containers/<parent>/<alias>?link=1`: removes a legacy link (and its hosts line, if running). A name
   * without a parent is a container's own default link name, which the engine refuses (with a 500; berth 409).
   */
  async removeLink(ref: string): Promise<void> {
    const i = ref.lastIndexOf('/');
    if (i <= 0) throw conflict('Conflict, cannot remove the default link name of the container');
    let rec: ContainerRecord;
    try {
      rec = this.d.store.find(ref.slice(0, i).replace(/^\//, ''));
    } catch {
      throw notFound(`No such container: ${ref}`);
    }
    const alias = ref.slice(i + 1);
    const links = rec.HostConfig.Links ?? [];
    const kept = links.filter((l) => parseLink(l)[1] !== alias);
    if (kept.length === links.length) throw notFound(`No such container: ${ref}`);
    rec.HostConfig = { ...rec.HostConfig, Links: kept.length ? kept : null };
    await this.d.store.save(rec);
    if (rec.State.Running) await this.d.networking.writeEtcFiles(rec).catch(() => undefined);
  }
}
