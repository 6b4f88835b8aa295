// A volume of the local driver — types only.

export interface Volume {
  Name: string;
  Driver: string;
  Mountpoint: string;
  Labels: Record<string, string> | null;
  Options: Record<string, string> | null;
  CreatedAt: string;
  /** created for one container (Config.Volumes / image VOLUME), removed with `rm -v` */
  Anonymous?: boolean;
}
