//! Parsing a scene and building it into a world, with each error named by
//! its JSON path.

use super::*;

impl Scene {
    /// Parses a scene from JSON text. Errors name the JSON path, and the
    /// line and column in the message.
    pub fn parse(json: &str) -> Result<Self, SceneError> {
        let de = &mut serde_json::Deserializer::from_str(json);
        let scene: Scene = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
            // The path ends in `?` where serde met a key it could not read.
            let path = e.path().to_string();
            let path = path.trim_end_matches('?').trim_end_matches('.');
            let path = if path == "." { "" } else { path }.to_string();
            SceneError::new(path, e.into_inner().to_string())
        })?;
        de.end()
            .map_err(|e| SceneError::new("", format!("after the scene: {e}")))?;
        Ok(scene)
    }

    /// Reads and parses a scene file of at most [`MAX_SCENE_BYTES`].
    pub fn load(path: &Path) -> Result<Self, SceneError> {
        Self::parse(&read_text(path, MAX_SCENE_BYTES)?)
    }

    /// The parameters: the file's, over the defaults (for its
    /// `length_unit`, [`Params::with_length_unit`]), checked
    /// ([`Params::validate`]); `shape_frequency` and `shape_damping_ratio`
    /// are converted to `shape_stiffness` and `shape_damping`. The error's
    /// path names the key at fault (`params.shape_frequency`).
    pub fn params(&self) -> Result<Params, SceneError> {
        let p = &self.params;
        let d = match p.length_unit {
            Some(u) => Params::with_length_unit(u).map_err(|e| at("params".into(), e))?,
            None => Params::default(),
        };
        let (shape_stiffness, shape_damping) = Stiffness {
            rate: p.shape_stiffness,
            damping: p.shape_damping,
            hz: p.shape_frequency,
            ratio: p.shape_damping_ratio,
        }
        .resolve(SHAPE_KEYS, DEFAULT_SHAPE.damping_ratio, |f| {
            f.shape_stiffness()
        })
        .map_err(|(key, why)| SceneError::new(format!("params.{key}"), why))?;
        let (area_stiffness, _) = Stiffness {
            rate: p.area_stiffness,
            damping: None,
            hz: p.area_frequency,
            ratio: None,
        }
        .resolve(AREA_KEYS, 0.0, |f| f.shape_stiffness())
        .map_err(|(key, why)| SceneError::new(format!("params.{key}"), why))?;
        let mut params = d.clone();
        ParamsSpec::apply_given(p, &mut params);
        params.gravity = p.gravity.map_or(d.gravity, v2);
        params.shape_stiffness = shape_stiffness.unwrap_or(d.shape_stiffness);
        params.shape_damping = shape_damping.unwrap_or(d.shape_damping);
        params.area_stiffness = area_stiffness.unwrap_or(d.area_stiffness);
        params.validate().map_err(|e| at("params".into(), e))?;
        Ok(params)
    }

    /// Points the scene asks for in all, saturating.
    pub fn total_points(&self) -> u128 {
        self.shapes.iter().fold(self.points.len() as u128, |n, s| {
            n.saturating_add(s.points_per_copy().saturating_mul(s.copies()))
        })
    }

    /// Where most of the scene's points come from, for the error of a scene
    /// over the limit: the generator that asks for the most, or the listed
    /// points where they are more (`points`).
    pub(super) fn largest_source(&self) -> String {
        let (k, worst) = self
            .shapes
            .iter()
            .enumerate()
            .map(|(k, s)| (k, s.points_per_copy().saturating_mul(s.copies())))
            .max_by_key(|&(_, n)| n)
            .unwrap_or((0, 0));
        if worst > self.points.len() as u128 {
            format!("shapes[{k}]")
        } else {
            "points".into()
        }
    }

    /// Builds the world: parameters, materials, planets, planes, points,
    /// then the generators in order, then springs and bodies (which may
    /// refer to generated points).
    pub fn build(&self) -> Result<World, SceneError> {
        let params = self.params()?;
        let total = self.total_points();
        if total > MAX_SCENE_POINTS as u128 {
            return Err(SceneError::new(
                self.largest_source(),
                format!(
                    "the scene asks for {total} points in all, more than the limit of {MAX_SCENE_POINTS}"
                ),
            ));
        }
        let mut world = World::new(params);
        for (i, m) in self.materials.iter().enumerate() {
            world
                .add_material(Material {
                    elasticity: m.elasticity,
                    friction: m.friction,
                    static_friction: m.static_friction,
                    dynamic_friction: m.dynamic_friction,
                })
                .map_err(|e| at(format!("materials[{i}]"), e))?;
        }
        for (i, p) in self.planets.iter().enumerate() {
            let planet = Planet {
                layers: p.layers,
                velocity: v2(p.velocity),
                spin: p.spin,
                ..Planet::new(v2(p.center), p.radius)
            };
            let planet = match (p.gravity, p.surface_gravity) {
                (Some(_), Some(_)) => {
                    return Err(SceneError::new(
                        format!("planets[{i}].surface_gravity"),
                        "give `gravity` or `surface_gravity`, not both",
                    ));
                }
                (Some(gm), None) => planet.gravity(gm),
                (None, Some(g)) => {
                    if !(g.is_finite() && g >= 0.0) {
                        return Err(SceneError::new(
                            format!("planets[{i}].surface_gravity"),
                            format!("{g} m/s^2: expected finite, >= 0"),
                        ));
                    }
                    planet.surface_gravity(g)
                }
                (None, None) => planet,
            };
            world
                .add_planet(planet)
                .map_err(|e| at(format!("planets[{i}]"), e))?;
        }
        for (i, p) in self.planes.iter().enumerate() {
            world
                .add_plane(HalfPlane {
                    layers: p.layers,
                    velocity: v2(p.velocity),
                    spin: p.spin,
                    pivot: p.pivot.map(v2),
                    ..HalfPlane::new(v2(p.normal), p.offset)
                })
                .map_err(|e| at(format!("planes[{i}]"), e))?;
        }
        for (i, t) in self.terrain.iter().enumerate() {
            world
                .add_terrain(crate::world::Terrain {
                    points: t.points.iter().map(|&p| v2(p)).collect(),
                    closed: t.closed,
                    layers: t.layers,
                    thickness: t.thickness,
                })
                .map_err(|e| at(format!("terrain[{i}]"), e))?;
        }
        for (i, p) in self.points.iter().enumerate() {
            world
                .add_point(
                    Point::new(v2(p.pos))
                        .vel(v2(p.vel))
                        .mass(p.mass)
                        .material(MaterialHandle(p.material))
                        .layers(p.layers)
                        .gravity_scale(p.gravity_scale),
                )
                .map_err(|e| at(format!("points[{i}]"), e))?;
        }
        for (k, shape) in self.shapes.iter().enumerate() {
            let path = format!("shapes[{k}].{}", shape.key());
            let style = shape
                .style()
                .map_err(|(key, why)| SceneError::new(format!("{path}.{key}"), why))?;
            let (counts, spacing) = shape
                .array()
                .map_or(([1, 1], Vec2::ZERO), |a| (a.count.0, v2(a.spacing)));
            if let ShapeSpec::Grid(GridSpec {
                center: Some(_),
                origin: Some(_),
                ..
            }) = shape
            {
                return Err(SceneError::new(
                    format!("{path}.origin"),
                    "give `center` or `origin`, not both",
                ));
            }
            if !spacing.is_finite() {
                return Err(SceneError::new(
                    format!("{path}.array.spacing"),
                    "is not finite (NaN or infinite)",
                ));
            }
            let build = |world: &mut World, offset: Vec2, copy: String| {
                let base = world.points().len();
                let first_body = world.bodies().len();
                shape.build_at(world, offset, style).map_err(|e| {
                    let path = match shape.json_field(&e, base, offset) {
                        Some(f) => format!("{path}.{f}"),
                        None => path.clone(),
                    };
                    SceneError::new(path, format!("{}{copy}", describe(&e)))
                })?;
                if let Some(k) = shape.kinematic() {
                    for b in first_body..world.bodies().len() {
                        world
                            .set_kinematic(
                                crate::world::BodyHandle(b as u32),
                                v2(k.velocity),
                                k.spin,
                            )
                            .map_err(|e| {
                                SceneError::new(
                                    format!("{path}.kinematic"),
                                    format!("{}{copy}", describe(&e)),
                                )
                            })?;
                    }
                }
                Ok(())
            };
            if shape.copies() == 0 {
                // It generates nothing, but its arguments are checked like
                // those of any other entry: one copy built aside (the
                // limit above did not count it).
                let per_copy = shape.points_per_copy();
                if per_copy > MAX_SCENE_POINTS as u128 {
                    return Err(SceneError::new(
                        path,
                        format!(
                            "one copy asks for {per_copy} points, more than the limit of {MAX_SCENE_POINTS}"
                        ),
                    ));
                }
                build(
                    &mut world.clone(),
                    Vec2::ZERO,
                    " (in the copy checked: the array makes none)".into(),
                )?;
                continue;
            }
            for j in 0..counts[1] {
                for i in 0..counts[0] {
                    let offset = Vec2::new(i as f32, j as f32) * spacing;
                    let copy = if shape.array().is_some() {
                        format!(" (copy [{i}, {j}] of the array)")
                    } else {
                        String::new()
                    };
                    build(&mut world, offset, copy)?;
                }
            }
        }
        let n = world.points().len() as u32;
        let check_index = |path: String, index: u32| {
            if index >= n {
                Err(SceneError::new(
                    path,
                    format!("point index {index} is out of range: the scene has {n} points"),
                ))
            } else {
                Ok(())
            }
        };
        for (i, s) in self.springs.iter().enumerate() {
            check_index(format!("springs[{i}].a"), s.a)?;
            check_index(format!("springs[{i}].b"), s.b)?;
            world
                .add_spring(Spring {
                    rest_length: s.rest_length,
                    stiffness: s.stiffness,
                    damping: s.damping,
                    ..Spring::new(PointHandle(s.a), PointHandle(s.b)).kind(s.kind.into())
                })
                .map_err(|e| at(format!("springs[{i}]"), e))?;
        }
        let handles = |indices: &[u32]| -> Vec<PointHandle> {
            indices.iter().map(|&p| PointHandle(p)).collect()
        };
        for (i, b) in self.bodies.iter().enumerate() {
            for (k, &p) in b.points.iter().enumerate() {
                check_index(format!("bodies[{i}].points[{k}]"), p)?;
            }
            for (k, &p) in b.boundary.iter().flatten().enumerate() {
                check_index(format!("bodies[{i}].boundary[{k}]"), p)?;
            }
            let body = Body {
                rest: b.rest.as_ref().map(|r| r.iter().copied().map(v2).collect()),
                stiffness: b.stiffness,
                damping: b.damping,
                area_stiffness: b.area_stiffness,
                inflation: b.inflation,
                boundary: b.boundary.as_deref().map(handles),
                material: MaterialHandle(b.material),
                category: b.category,
                mask: b.mask,
                kinematic: b.kinematic,
                ..Body::new(handles(&b.points))
            };
            world.add_body(body).map_err(|e| match &e {
                // A degenerate body names no field; its reason says which.
                WorldError::DegenerateBody { reason, .. } => {
                    let field = if reason.starts_with("boundary") {
                        "boundary"
                    } else if reason.starts_with("rest shape") && b.rest.is_some() {
                        "rest"
                    } else {
                        // A point listed twice, fewer than 2 points, or
                        // (with no `rest`) points that all coincide.
                        "points"
                    };
                    SceneError::new(format!("bodies[{i}].{field}"), describe(&e))
                }
                _ => at(format!("bodies[{i}]"), e),
            })?;
        }
        let bodies = world.bodies().len() as u32;
        for (i, j) in self.joints.iter().enumerate() {
            for (field, b) in std::iter::once(("body", j.body)).chain(j.other.map(|o| ("other", o)))
            {
                if b >= bodies {
                    return Err(SceneError::new(
                        format!("joints[{i}].{field}"),
                        format!("body index {b} is out of range: the scene has {bodies} bodies"),
                    ));
                }
            }
            let joint = Joint {
                body: BodyHandle(j.body),
                other: j.other.map(BodyHandle),
                spring: j.spring.as_ref().map(|s| AngularSpring {
                    hertz: s.hertz,
                    damping_ratio: s.damping_ratio,
                    target: s.target,
                }),
                motor: j.motor.as_ref().map(|m| Motor {
                    speed: m.speed,
                    max_torque: m.max_torque,
                }),
                limits: j.limits.map(|l| l.0),
            };
            world
                .add_joint(joint)
                .map_err(|e| at(format!("joints[{i}]"), e))?;
        }
        Ok(world)
    }
}
